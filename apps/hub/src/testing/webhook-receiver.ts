/**
 * A local HTTPS receiver for webhook and notification tests: a certificate for the names it is given, signed
 * by its own CA (the hub trusts it through the outbound client's `ca`), and an answer chosen per path.
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServerCertificate } from '../platform/tls/certificates.js';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

type Answer = (res: ServerResponse, request: ReceivedRequest, hitsOnPath: number) => void;

export interface Receiver {
  port: number;
  /** The CA certificate that signed the receiver's (PEM). */
  ca: string;
  received: ReceivedRequest[];
  on(path: string, answer: Answer): void;
  hits(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** `port`: listen there (a receiver back on the port of one that went down); any free port otherwise. */
export async function startReceiver(names: readonly string[], port = 0): Promise<Receiver> {
  const now = new Date();
  const ca = await createCertificateAuthority(now, 'receiver test CA');
  const leaf = await issueServerCertificate(ca, names, now);
  const answers = new Map<string, Answer>();
  const received: ReceivedRequest[] = [];
  const server: Server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      const answer = answers.get(request.path) ?? ((r) => r.end('ok'));
      answer(res, request, received.filter((r) => r.path === request.path).length);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    ca: ca.certPem,
    received,
    on: (path, answer) => answers.set(path, answer),
    hits: (path) => received.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** Polls until `done` holds, for at most `timeoutMs`. */
export async function until(done: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
