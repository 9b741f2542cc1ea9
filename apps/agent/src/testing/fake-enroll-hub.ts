/** A stand-in for the hub's enrollment endpoints (POST /api/v1/enroll, GET /api/v1/tls/ca.crt). Test support. */
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

export interface FakeEnrollHub {
  url: string;
  /** Bodies of the enrollment requests received. */
  enrollBodies: unknown[];
  caRequests: number;
  close(): Promise<void>;
}

export interface FakeEnrollHubOptions {
  tls?: { cert: string; key: string };
  /** What GET /api/v1/tls/ca.crt serves (404 when null). */
  servedCa?: string | null;
  status?: number;
  answer: unknown;
}

export async function startFakeEnrollHub(options: FakeEnrollHubOptions): Promise<FakeEnrollHub> {
  const hub: FakeEnrollHub = { url: '', enrollBodies: [], caRequests: 0, close: () => Promise.resolve() };
  const handler: http.RequestListener = (req, res) => {
    if (req.method === 'GET' && req.url === '/api/v1/tls/ca.crt') {
      hub.caRequests += 1;
      if (options.servedCa)
        res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(options.servedCa);
      else res.writeHead(404).end();
      return;
    }
    if (req.method === 'POST' && req.url === '/api/v1/enroll') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        hub.enrollBodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        res
          .writeHead(options.status ?? 201, { 'content-type': 'application/json' })
          .end(JSON.stringify(options.answer));
      });
      return;
    }
    res.writeHead(404).end();
  };
  const server = options.tls
    ? https.createServer({ cert: options.tls.cert, key: options.tls.key }, handler)
    : http.createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  hub.url = `${options.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  hub.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return hub;
}
