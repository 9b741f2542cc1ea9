/**
 * The HTTPS server under each fake upstream: a certificate for 127.0.0.1 and `localhost` signed by a CA the
 * test holds (`ca`), or, in `unknown_ca` mode, by another CA the test never sees; the failure modes every
 * product shares, switchable per test; and a record of what was asked. The product fakes answer the rest.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createCertificateAuthority, issueServerCertificate } from '@svc/hub';

/**
 * - `unauthorized`: 401 with an empty body, whatever the credential;
 * - `server_error`: the product's 500;
 * - `slow`: the answer is held for `slowMs` (beyond a client's timeout);
 * - `malformed`: 200 with a JSON body cut short.
 */
export const upstreamFailures = ['none', 'unauthorized', 'server_error', 'slow', 'malformed'] as const;
export type UpstreamFailure = (typeof upstreamFailures)[number];

export interface UpstreamRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface UpstreamReply {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

export type UpstreamHandler = (request: UpstreamRequest) => UpstreamReply;

export interface UpstreamServerOptions {
  /** Serve a certificate from a CA other than `ca`: a client trusting `ca` must refuse the handshake. */
  unknownCa?: boolean;
  /** The product's answer to a server failure (status 500 and its body). */
  serverError: UpstreamReply;
  /** Requests the failure modes leave alone (a version probe that is not about the API itself). */
  exempt?: (request: UpstreamRequest) => boolean;
}

export interface UpstreamServer {
  /** `https://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** The CA certificate (PEM) a client should trust. */
  ca: string;
  server: Server;
  requests: UpstreamRequest[];
  failure: UpstreamFailure;
  slowMs: number;
  close: () => Promise<void>;
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): UpstreamReply {
  return {
    status,
    body: JSON.stringify(value),
    headers: { 'content-type': 'application/json', ...headers },
  };
}

export function text(status: number, body: string, contentType = 'text/plain; charset=utf-8'): UpstreamReply {
  return { status, body, headers: { 'content-type': contentType } };
}

export async function startUpstreamServer(
  handler: UpstreamHandler,
  options: UpstreamServerOptions,
): Promise<UpstreamServer> {
  const now = new Date();
  const trusted = await createCertificateAuthority(now, 'fake upstream test CA');
  const signer = options.unknownCa ? await createCertificateAuthority(now, 'unknown CA') : trusted;
  const leaf = await issueServerCertificate(signer, ['localhost', '127.0.0.1'], now);
  const pending = new Set<NodeJS.Timeout>();
  const state: UpstreamServer = {
    url: '',
    port: 0,
    ca: trusted.certPem,
    server: createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
      void readBody(req).then((body) => {
        const request = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
        state.requests.push(request);
        const failure = options.exempt?.(request) ? 'none' : state.failure;
        const send = (): void => {
          write(res, answerFor(failure, request));
        };
        if (failure === 'slow') {
          const timer = setTimeout(() => {
            pending.delete(timer);
            if (!res.destroyed) send();
          }, state.slowMs);
          pending.add(timer);
        } else send();
      });
    }),
    requests: [],
    failure: 'none',
    slowMs: 5_000,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of pending) clearTimeout(timer);
        state.server.closeAllConnections();
        state.server.close(() => {
          resolve();
        });
      }),
  };
  const answerFor = (failure: UpstreamFailure, request: UpstreamRequest): UpstreamReply => {
    switch (failure) {
      case 'unauthorized':
        return { status: 401 };
      case 'server_error':
        return options.serverError;
      case 'malformed':
        return { status: 200, body: '{"data": [{"id": 1, ', headers: { 'content-type': 'application/json' } };
      case 'none':
      case 'slow':
        return handler(request);
    }
  };
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.port = (state.server.address() as AddressInfo).port;
  state.url = `https://127.0.0.1:${String(state.port)}`;
  return state;
}

function write(res: ServerResponse, reply: UpstreamReply): void {
  res.writeHead(reply.status, { 'content-length': Buffer.byteLength(reply.body ?? ''), ...reply.headers });
  res.end(reply.body ?? '');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The path without its query, and the query as a map. */
export function splitPath(path: string): { pathname: string; query: URLSearchParams } {
  const url = new URL(path, 'https://fake.invalid');
  return { pathname: url.pathname, query: url.searchParams };
}
