/** `svc-agent settings test docker`: GET /_ping on the configured container engine endpoint. */
import http from 'node:http';
import https from 'node:https';
import type { ContainerEndpoint } from '../config/container-endpoint.js';

export type PingOutcome = { ok: true } | { ok: false; reason: string };

function explain(error: NodeJS.ErrnoException, endpoint: ContainerEndpoint): string {
  const where = endpoint.kind === 'unix' ? endpoint.socketPath : endpoint.url;
  switch (error.code ?? '') {
    case 'ENOENT':
      return `no socket at ${where} (is the container engine installed and running?)`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied on ${where} (run the agent as root or in the docker group)`;
    case 'ECONNREFUSED':
      return `connection refused at ${where} (is the engine running?)`;
    case 'ENOTSOCK':
      return `${where} is not a socket`;
    default:
      return `${where}: ${error.message}`;
  }
}

export function pingContainerEndpoint(endpoint: ContainerEndpoint, timeoutMs = 5_000): Promise<PingOutcome> {
  return new Promise((resolve) => {
    const options = {
      method: 'GET',
      timeout: timeoutMs,
      agent: false,
      headers: { accept: 'text/plain' },
    } as const;
    const req =
      endpoint.kind === 'unix'
        ? http.request({ ...options, socketPath: endpoint.socketPath, path: '/_ping' })
        : (endpoint.url.startsWith('https:') ? https : http).request(`${endpoint.url}/_ping`, options);
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (body.length < 1024) body += chunk;
      });
      res.on('end', () => {
        if (res.statusCode === 200 && body.trim() === 'OK') resolve({ ok: true });
        else
          resolve({
            ok: false,
            reason: `the endpoint answered ${res.statusCode ?? 0}${body ? `: ${body.trim().slice(0, 200)}` : ''} (not a container engine?)`,
          });
      });
    });
    req.on('timeout', () => {
      req.destroy(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { code: 'ETIMEDOUT' }));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      resolve({ ok: false, reason: explain(error, endpoint) });
    });
    req.end();
  });
}
