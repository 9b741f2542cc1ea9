/** JSON over HTTPS (or HTTP) to loopback for benchmarks: a keep-alive agent trusting a given CA, timed. */
import http from 'node:http';
import https from 'node:https';

export interface JsonClient {
  request(
    method: string,
    url: string,
    options?: { body?: unknown; headers?: Record<string, string>; timeoutMs?: number },
  ): Promise<{ status: number; text: string; ms: number }>;
  close(): void;
}

export function jsonClient(options: { ca?: string } = {}): JsonClient {
  const httpsAgent = new https.Agent({
    keepAlive: true,
    maxSockets: 4,
    ...(options.ca ? { ca: options.ca } : {}),
  });
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  return {
    request(method, url, o = {}) {
      if (!/^https?:\/\/(127\.|localhost|\[::1\])/.test(url)) {
        throw new Error(`benchmarks only talk to loopback, not ${url}`);
      }
      const body = o.body === undefined ? undefined : JSON.stringify(o.body);
      const secure = url.startsWith('https:');
      return new Promise((resolve, reject) => {
        const started = performance.now();
        const req = (secure ? https : http).request(
          url,
          {
            method,
            agent: secure ? httpsAgent : httpAgent,
            headers: {
              ...(body !== undefined
                ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
                : {}),
              ...o.headers,
            },
            timeout: o.timeoutMs ?? 120_000,
          },
          (res) => {
            const parts: Buffer[] = [];
            res.on('data', (chunk: Buffer) => parts.push(chunk));
            res.on('end', () => {
              resolve({
                status: res.statusCode ?? 0,
                text: Buffer.concat(parts).toString('utf8'),
                ms: performance.now() - started,
              });
            });
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`${method} ${url} timed out`)));
        req.on('error', reject);
        req.end(body);
      });
    },
    close() {
      httpsAgent.destroy();
      httpAgent.destroy();
    },
  };
}
