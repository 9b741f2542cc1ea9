import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { redactedPaths } from '../platform/logger.js';
import { HubLogController } from './request-log.js';

function capturingApp(level: string) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  // Typed as Fastify's base logger so the instance type stays the plain FastifyInstance (as app.ts does).
  const loggerInstance: FastifyBaseLogger = pino({ level, redact: { paths: redactedPaths } }, stream);
  const app = Fastify({
    loggerInstance,
    logController: new HubLogController(),
  });
  app.get('/ok', () => Promise.resolve({ ok: true }));
  app.get('/refused', (_request, reply) => reply.code(401).send({ error: 'unauthorized' }));
  return { app, lines };
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

  it('writes every request at debug', async () => {
    const { app, lines } = capturingApp('debug');
    await app.inject({ method: 'GET', url: '/ok' });
    await app.inject({ method: 'GET', url: '/refused' });
    expect(lines.map((l) => l.status)).toEqual([200, 401]);
    await app.close();
  });
});
