/**
 * What a new owner does with a freshly started hub, over HTTP(S) as a browser would: sign in with the
 * generated password from the first-run file, choose a new one (the hub then deletes the file), and make the
 * owner token, which the hub shows once. Tests that run the hub as a process start from here.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { tlsRequest } from './https-client.js';

export interface ClaimedOwner {
  ownerKey: string;
  password: string;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function plainRequest(url: string, method: string, headers: Record<string, string>, body: string) {
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false, timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${url}: no answer in time`)));
    req.on('error', reject);
    req.end(body);
  });
}

export async function claimOwner(
  baseUrl: string,
  dataDir: string,
  options: { ca?: string; newPassword?: string } = {},
): Promise<ClaimedOwner> {
  const text = fs.readFileSync(path.join(dataDir, 'owner-credentials.txt'), 'utf8');
  const generated = /^password=(\S+)$/m.exec(text)?.[1];
  if (!generated) throw new Error('the first-run file holds no password');
  const origin = new URL(baseUrl).origin;

  const send = async (method: string, urlPath: string, body: unknown, cookie?: string) => {
    const headers: Record<string, string> = { 'content-type': 'application/json', origin };
    if (cookie) headers.cookie = cookie;
    const payload = JSON.stringify(body);
    const url = new URL(urlPath, baseUrl).toString();
    const answer = url.startsWith('https:')
      ? await tlsRequest(url, { method, headers, body: payload, ...(options.ca ? { ca: options.ca } : {}) })
      : await plainRequest(url, method, headers, payload);
    if (answer.status !== 200) throw new Error(`${method} ${urlPath}: ${answer.status} ${answer.body}`);
    return answer;
  };

  const login = await send('POST', '/api/auth/login', { username: 'owner', password: generated });
  const setCookie = login.headers['set-cookie'];
  const cookie = (Array.isArray(setCookie) ? setCookie : [String(setCookie)])
    .find((c) => c.startsWith('svc_session='))
    ?.split(';')[0];
  if (!cookie) throw new Error('sign-in set no session cookie');
  const password = options.newPassword ?? `owner-${Math.random().toString(36).slice(2)}-chosen`;
  await send('POST', '/api/auth/password', { current_password: generated, new_password: password }, cookie);
  const made = await send('POST', '/api/auth/owner-token', {}, cookie);
  const ownerKey = (JSON.parse(made.body) as { data: { raw_key: string } }).data.raw_key;
  return { ownerKey, password };
}
