import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../platform/logger.js';
import { createRefusalLog } from '../platform/refusal-log.js';
import { HubLogController, loggedUrlChars } from './request-log.js';

function capturingApp(level: string, now: () => number = Date.now) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  // Typed as Fastify's base logger so the instance type stays the plain FastifyInstance (as app.ts does).
  const logger = createLogger(level, stream);
  const loggerInstance: FastifyBaseLogger = logger;
  const refusals = createRefusalLog({ logger, now, linesPerSource: 5 });
  const app = Fastify({
    loggerInstance,
    logController: new HubLogController(refusals),
  });
  app.get('/ok', () => Promise.resolve({ ok: true }));
  app.get('/refused', (_request, reply) => reply.code(401).send({ error: 'unauthorized' }));
  return { app, lines, refusals };
}

describe('request log', () => {
  it('writes nothing per successful request at info, and one line per refusal without the credential', async () => {
    const { app, lines } = capturingApp('info');
    const secret = 'svc_abcd_' + 'x'.repeat(52);
    await app.inject({ method: 'GET', url: '/ok', headers: { authorization: `Bearer ${secret}` } });
    expect(lines).toHaveLength(0);
    await app.inject({ method: 'GET', url: '/refused', headers: { authorization: `Bearer ${secret}` } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request', method: 'GET', url: '/refused', status: 401 });
    expect(JSON.stringify(lines)).not.toContain(secret);
    await app.close();
  });

  it('puts the request id on each request line and hides credentials in the query string', async () => {
    const { app, lines } = capturingApp('debug');
    const code = 'oidc-code-' + 'y'.repeat(20);
    await app.inject({
      method: 'GET',
      url: `/ok?code=${code}&state=s3cr3t-state&page=2&api_key=k3y`,
    });
    await app.inject({ method: 'GET', url: '/ok' });

    expect(lines).toHaveLength(2);
    expect(lines[0]?.url).toBe('/ok?code=[redacted]&state=[redacted]&page=2&api_key=[redacted]');
    expect(typeof lines[0]?.reqId).toBe('string');
    expect(lines[1]?.reqId).not.toBe(lines[0]?.reqId);
    const all = JSON.stringify(lines);
    expect(all).not.toContain(code);
    expect(all).not.toContain('s3cr3t-state');
    expect(all).not.toContain('k3y');
    await app.close();
  });

  it('writes every request at debug', async () => {
    const { app, lines } = capturingApp('debug');
    await app.inject({ method: 'GET', url: '/ok' });
    await app.inject({ method: 'GET', url: '/refused' });
    expect(lines.map((l) => l.status)).toEqual([200, 401]);
    await app.close();
  });

  it('cuts a 15 KB URL of a refused request, and logs a few refusals per address then one summary', async () => {
    let time = 1_000_000;
    const { app, lines, refusals } = capturingApp('info', () => time);
    const longUrl = `/refused?${'a'.repeat(15_000)}`;

    for (let i = 0; i < 200; i += 1) {
      await app.inject({ method: 'GET', url: longUrl, remoteAddress: '203.0.113.9' });
    }
    await app.inject({ method: 'GET', url: '/refused', remoteAddress: '198.51.100.1' });

    expect(lines).toHaveLength(6);
    const first = lines[0] as { url: string; ip: string };
    expect(first.ip).toBe('203.0.113.9');
    expect(first.url.length).toBeLessThan(loggedUrlChars + 40);
    expect(first.url.startsWith('/refused?aaaa')).toBe(true);
    expect(lines[5]).toMatchObject({ ip: '198.51.100.1', url: '/refused' });

    time += 60_000;
    refusals.sweep();
    expect(lines.slice(6)).toMatchObject([
      {
        msg: '195 more refusals from 203.0.113.9 in the last minute',
        source: '203.0.113.9',
        refusals: 195,
        kinds: { request: 195 },
      },
    ]);
    const bytes = lines.reduce((sum, l) => sum + JSON.stringify(l).length, 0);
    expect(bytes).toBeLessThan(8 * 1024);
    await app.close();
  });
});
