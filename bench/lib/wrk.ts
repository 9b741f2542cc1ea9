/** Load from a second process: wrk (Debian's package), bounded in time, loopback only. */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface WrkResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  requests: number;
}

function toMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!m) return Number.NaN;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
}

export function runWrk(
  url: string,
  options: {
    seconds: number;
    connections: number;
    threads?: number;
    headers?: Record<string, string>;
    /** A POST of this body (JSON text), through a wrk script of one line each. */
    postBody?: string;
    /** wrk counts an answer slower than this as a socket error (wrk's default: 2 s). */
    timeoutSeconds?: number;
  },
): Promise<WrkResult> {
  if (!/^https?:\/\/(127\.|localhost|\[::1\])/.test(url))
    throw new Error(`benchmarks only load loopback, not ${url}`);
  const args = [
    '-t',
    String(options.threads ?? 1),
    '-c',
    String(options.connections),
    '-d',
    `${options.seconds}s`,
    '--latency',
  ];
  for (const [k, v] of Object.entries(options.headers ?? {})) args.push('-H', `${k}: ${v}`);
  if (options.timeoutSeconds !== undefined) args.push('--timeout', `${String(options.timeoutSeconds)}s`);
  if (options.postBody !== undefined) {
    const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'svc-wrk-')), 'post.lua');
    // A Lua long string holds the body as it is (JSON has no "]]").
    fs.writeFileSync(script, `wrk.method = "POST"\nwrk.body = [[${options.postBody}]]\n`);
    args.push('-s', script);
  }
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile('wrk', args, { timeout: (options.seconds + 30) * 1000 }, (error, stdout) => {
      if (error) {
        reject(new Error(`wrk failed (install it: apt-get install wrk): ${error.message}`));
        return;
      }
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
      const p50 = toMs(/\s50%\s+(\S+)/.exec(stdout)?.[1] ?? '');
      const p99 = toMs(/\s99%\s+(\S+)/.exec(stdout)?.[1] ?? '');
      const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
      const errorsLine = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
      const errors = errorsLine ? errorsLine.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
      const requests = Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
      resolve({ requestsPerSecond: rps, p50Ms: p50, p99Ms: p99, non2xx, errors, requests });
    });
  });
}
