/**
 * The hub's HTTPS server (httpsServerFactory) on loopback with a certificate of its built-in CA: a request
 * that arrives while a large answer before it is still being written is answered, not dropped (decision 0046).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from './platform/logger.js';
import { ManualClock } from './platform/clock.js';
import { createSecretBox } from './platform/secret-box.js';
import { TlsManager } from './platform/tls/tls-manager.js';
import { httpsServerFactory } from './server.js';

const answerBytes = 8 * 1024 * 1024;

interface HttpAnswer {
  status: number;
  headers: string;
  bodyLength: number;
}

/** The complete HTTP/1.1 answers (each with a content-length) at the start of what a connection received. */
function splitAnswers(received: Buffer): HttpAnswer[] {
  const answers: HttpAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = received.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return answers;
    const headers = received.subarray(at, headEnd).toString('latin1');
    const length = Number(/^content-length: (\d+)$/im.exec(headers)?.[1] ?? NaN);
    const bodyEnd = headEnd + 4 + length;
    if (!Number.isFinite(length) || received.length < bodyEnd) return answers;
    answers.push({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(headers)?.[1]), headers, bodyLength: length });
    at = bodyEnd;
  }
}

let work: string;
let server: http.Server;
let port: number;
let caPem: string;

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-server-'));
  const manager = new TlsManager({
    mode: 'auto',
    dataDir: path.join(work, 'data'),
    caKeyDir: path.join(work, 'data-ca-key'),
    box: createSecretBox(randomBytes(32)),
    hostnames: [],
    externalCertFile: null,
    externalKeyFile: null,
    clock: new ManualClock(new Date()),
    logger: silentLogger,
    loadOverride: () => Promise.resolve(null),
  });
  await manager.init();
  caPem = manager.caCertificate() ?? '';
  // Each request's body is read whole, then answered with 8 MiB (more than loopback's socket buffers hold),
  // saying how many body bytes arrived.
  server = httpsServerFactory(manager)((req, res) => {
    let received = 0;
    req.on('data', (chunk: Buffer) => (received += chunk.length));
    req.on('end', () => {
      res.writeHead(200, { 'content-length': String(answerBytes), 'x-received': String(received) });
      res.end(Buffer.alloc(answerBytes, 'a'));
    });
  }, {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(work, { recursive: true, force: true });
});

describe("the hub's HTTPS server", () => {
  it('answers a pipelined request with a body of many TLS records behind a large answer', async () => {
    const body = Buffer.alloc(300_000, 'b');
    const first = 'POST /first HTTP/1.1\r\nhost: localhost\r\ncontent-length: 10\r\n\r\n0123456789';
    const second = Buffer.concat([
      Buffer.from(
        `POST /second HTTP/1.1\r\nhost: localhost\r\ncontent-length: ${String(body.length)}\r\n\r\n`,
      ),
      body,
    ]);
    const received = await new Promise<{ answers: HttpAnswer[]; closed: boolean; error: string | null }>(
      (resolve) => {
        const parts: Buffer[] = [];
        let size = 0;
        let error: string | null = null;
        const socket = tls.connect({ host: '127.0.0.1', port, ca: caPem, servername: 'localhost' });
        const done = (closed: boolean) => {
          clearTimeout(timer);
          socket.destroy();
          resolve({ answers: splitAnswers(Buffer.concat(parts)), closed, error });
        };
        const timer = setTimeout(() => {
          done(false);
        }, 20_000);
        socket.on('secureConnect', () => {
          socket.write(first);
          socket.write(second);
        });
        socket.on('data', (chunk: Buffer) => {
          parts.push(chunk);
          size += chunk.length;
          if (size >= 2 * answerBytes && splitAnswers(Buffer.concat(parts)).length === 2) done(false);
        });
        socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
        socket.on('close', () => {
          done(true);
        });
      },
    );
    expect(received.error).toBeNull();
    expect(received.closed).toBe(false);
    expect(received.answers.map((a) => a.status)).toEqual([200, 200]);
    expect(received.answers.map((a) => /^x-received: (\d+)$/im.exec(a.headers)?.[1])).toEqual([
      '10',
      String(body.length),
    ]);
  });
});
