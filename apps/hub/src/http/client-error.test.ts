import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@svc/hub';
import { startTestHub, type TestHub } from '@svc/testkit';

/** Writes raw bytes to the hub over TLS and reads the whole answer (the hub closes after a parser error). */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      socket.write(request);
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => {
      resolve(text);
    });
    socket.on('error', (error: Error) => {
      if (text) resolve(text);
      else reject(error);
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
  });
}

function headersOf(answer: string): { status: number; headers: Map<string, string>; body: string } {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('answers of the HTTP parser over HTTPS (spec 5.3: security headers on every response)', () => {
  let t: TestHub;
  let port: number;

  beforeAll(async () => {
    t = await startTestHub({
      env: { SVC_TLS_MODE: 'auto' },
      listen: true,
      clock: new ManualClock(new Date()),
    });
    port = t.servers?.httpsPort ?? 0;
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['an unknown method', 'TRACK / HTTP/1.1\r\nHost: localhost\r\n\r\n', 400],
    [
      'a header over the size limit',
      `GET / HTTP/1.1\r\nHost: localhost\r\nX-Pad: ${'a'.repeat(40_000)}\r\n\r\n`,
      431,
    ],
    ['bytes that are not HTTP', '\u0000\u0001garbage\r\n\r\n', 400],
  ])('%s: %i in the envelope, with HSTS, nosniff and X-Frame-Options', async (_label, request, status) => {
    const answer = headersOf(await rawExchange(port, request));
    expect(answer.status).toBe(status);
    expect(answer.headers.get('strict-transport-security')).toBe('max-age=63072000');
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(JSON.parse(answer.body)).toMatchObject({ status, error: 'validation' });
  });
});
