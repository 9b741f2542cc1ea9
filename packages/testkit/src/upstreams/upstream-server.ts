/**
 * The tiny HTTPS server every fake upstream runs on: a certificate for `localhost`, `127.0.0.1` and the names
 * asked for, signed by a CA the test holds (`ca`, or pin `fingerprint`), and failure modes a test switches at
 * will — 401 with an empty body, 5xx, an answer slower than any timeout, malformed JSON, and a certificate from
 * an unknown CA. Products give their own status lines and bodies for each failure.
 */
import { createHash, X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServerCertificate } from '@svc/hub';

export const upstreamFailureModes = [
  'unauthorized',
  'server_error',
  'slow',
  'malformed',
  'unknown_ca',
] as const;
export type UpstreamFailureMode = (typeof upstreamFailureModes)[number];

export interface FakeRequest {
  method: string;
  /** Path without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

/** What a product's handler answers. `statusText` is the reason phrase (some products put their error there). */
export interface FakeAnswer {
  status: number;
  statusText?: string;
  /** Serialized as JSON unless a string. */
  body?: unknown;
  contentType?: string;
  /** More response headers (Portainer's `X-Total-Count`). */
  headers?: Record<string, string>;
}

export interface FailureAnswers {
  unauthorized: FakeAnswer;
  server_error: FakeAnswer;
}

export interface UpstreamServerOptions {
  /** Extra names the certificate is valid for (with `localhost` and `127.0.0.1`). */
  names?: readonly string[];
  failures: FailureAnswers;
  handle(request: FakeRequest): FakeAnswer | Promise<FakeAnswer>;
  /** How long `slow` waits before answering (default 30 s: beyond any client timeout). */
  slowMs?: number;
  /** Requests the failure modes leave alone (a version probe that is not the API itself). */
  exempt?: (request: FakeRequest) => boolean;
}

export interface FakeUpstreamServer {
  port: number;
  /** `https://localhost:<port>` (or the given host). */
  url(host?: string): string;
  /** The trusted CA's certificate (PEM), for `tls_mode: pinned_ca`. */
  ca: string;
  /** SHA-256 of the server's certificate (lowercase hex), for `tls_mode: fingerprint`. */
  fingerprint: string;
  /** The failure every request meets now; null for normal answers. */
  fail(mode: UpstreamFailureMode | null): void;
  /** Requests seen, oldest first. */
  requests: FakeRequest[];
  /** The failure mode now (for a product that serves more than HTTP requests: TrueNAS's WebSocket). */
  mode(): UpstreamFailureMode | null;
  /** The HTTPS server, for a product's WebSocket upgrades. */
  server: Server;
  close(): Promise<void>;
}

function send(res: ServerResponse, answer: FakeAnswer): void {
  const text =
    answer.body === undefined
      ? ''
      : typeof answer.body === 'string'
        ? answer.body
        : JSON.stringify(answer.body);
  res.writeHead(answer.status, answer.statusText ?? '', {
    'content-type': answer.contentType ?? 'application/json;charset=UTF-8',
    'content-length': Buffer.byteLength(text),
    ...answer.headers,
  });
  res.end(text);
}

export async function startUpstreamServer(options: UpstreamServerOptions): Promise<FakeUpstreamServer> {
  const now = new Date();
  const names = ['localhost', '127.0.0.1', ...(options.names ?? [])];
  const ca = await createCertificateAuthority(now, 'fake upstream test CA');
  const leaf = await issueServerCertificate(ca, names, now);
  const strangerCa = await createCertificateAuthority(now, 'unknown CA');
  const strangerLeaf = await issueServerCertificate(strangerCa, names, now);
  const fingerprint = createHash('sha256').update(new X509Certificate(leaf.certPem).raw).digest('hex');
  let failure: UpstreamFailureMode | null = null;
  const requests: FakeRequest[] = [];
  const pending = new Set<NodeJS.Timeout>();

  const server: Server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://fake.invalid');
      const request: FakeRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      switch (options.exempt?.(request) ? null : failure) {
        case 'unauthorized':
          send(res, options.failures.unauthorized);
          return;
        case 'server_error':
          send(res, options.failures.server_error);
          return;
        case 'slow': {
          const timer = setTimeout(() => {
            pending.delete(timer);
            send(res, { status: 200, body: { data: null } });
          }, options.slowMs ?? 30_000);
          pending.add(timer);
          return;
        }
        case 'malformed':
          send(res, { status: 200, body: '{"data": [ {"truncated": ' });
          return;
        case 'unknown_ca':
        case null:
          break;
      }
      void Promise.resolve(options.handle(request)).then(
        (answer) => {
          send(res, answer);
        },
        (error: unknown) => {
          send(res, { status: 500, statusText: String(error), body: '' });
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (host = 'localhost') => `https://${host}:${String(port)}`,
    ca: ca.certPem,
    fingerprint,
    fail(mode) {
      const wasStranger = failure === 'unknown_ca';
      failure = mode;
      if (mode === 'unknown_ca')
        server.setSecureContext({ cert: strangerLeaf.certPem, key: strangerLeaf.keyPem });
      else if (wasStranger) server.setSecureContext({ cert: leaf.certPem, key: leaf.keyPem });
      // Kept-alive connections were made with the old certificate: a new mode starts on new connections.
      server.closeIdleConnections();
    },
    requests,
    mode: () => failure,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of pending) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
