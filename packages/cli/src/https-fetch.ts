/**
 * The SDK's transport for the CLI: node:https with the hub's own CA when one is pinned (Node's global fetch
 * cannot take a CA per request), answers read as a stream so the exec fan-out shows each result as it lands.
 */
import http from 'node:http';
import https from 'node:https';
import { Readable } from 'node:stream';
import type { FetchInit, FetchLike, FetchResponse } from '@svc/sdk';

/** An answer read whole (not a stream) is refused past this: nothing the CLI asks for is larger. */
const maxAnswerBytes = 64 * 1024 * 1024;

export interface TransportOptions {
  /** The hub's CA (PEM); the system's trust store when absent. */
  caPem?: string;
  /** The connection is dropped when nothing arrives for this long (a fan-out waits for its slowest target). */
  idleTimeoutMs: number;
}

function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxAnswerBytes) {
        stream.destroy(new Error(`the hub's answer is over ${String(maxAnswerBytes)} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('error', reject);
    stream.on('end', () => {
      resolve(Buffer.concat(chunks));
    });
  });
}

export function createTransport(options: TransportOptions): FetchLike {
  return (url: string, init: FetchInit) =>
    new Promise<FetchResponse>((resolve, reject) => {
      const target = new URL(url);
      const common = { method: init.method, headers: init.headers, timeout: options.idleTimeoutMs };
      const req =
        target.protocol === 'https:'
          ? https.request(target, {
              ...common,
              agent: false,
              ...(options.caPem ? { ca: options.caPem } : {}),
              rejectUnauthorized: true,
            })
          : http.request(target, { ...common, agent: false });
      const abort = () => req.destroy(new Error('stopped'));
      init.signal?.addEventListener('abort', abort, { once: true });
      req.on('timeout', () => {
        const error = new Error(
          `no answer from ${target.host} in ${String(Math.round(options.idleTimeoutMs / 1000))} s`,
        ) as NodeJS.ErrnoException;
        error.code = 'ETIMEDOUT';
        req.destroy(error);
      });
      req.on('error', reject);
      req.on('response', (res) => {
        let web: ReadableStream<Uint8Array> | null = null;
        resolve({
          status: res.statusCode ?? 0,
          headers: {
            get: (name: string) => {
              const value = res.headers[name.toLowerCase()];
              return Array.isArray(value) ? value.join(', ') : (value ?? null);
            },
          },
          text: async () => (await collect(res)).toString('utf8'),
          arrayBuffer: async () => {
            const bytes = await collect(res);
            const copy = new ArrayBuffer(bytes.byteLength);
            new Uint8Array(copy).set(bytes);
            return copy;
          },
          get body() {
            web ??= Readable.toWeb(res) as ReadableStream<Uint8Array>;
            return web;
          },
        });
      });
      req.end(init.body);
    });
}
