import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, logLimits } from './logger.js';

function capturingLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('info', stream), lines };
}

const oneMiB = 'x'.repeat(1024 * 1024);

describe('logger bounds', () => {
  it('cuts a megabyte field, message and error to a few kilobytes, keeping the line JSON', () => {
    const { logger, lines } = capturingLogger();

    logger.warn({ reason: `frame version ${oneMiB} is not supported` }, 'agent channel closed');
    logger.info(`a message quoting its input ${oneMiB}`);
    logger.error({ err: new Error(`bad input ${oneMiB}`) }, 'failed');
    logger.info({ url: `/api/v2/${oneMiB}` }, 'request');
    logger.info({ nested: { deeper: [{ text: oneMiB }] } }, 'nested');

    expect(lines).toHaveLength(5);
    for (const line of lines) {
      expect(line.length).toBeLessThan(8 * 1024);
      expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
    const first = JSON.parse(lines[0] ?? '{}') as { reason: string };
    expect(first.reason).toMatch(/^frame version x+…\[\d+ more chars\]$/);
    const error = JSON.parse(lines[2] ?? '{}') as { err: { type: string; message: string; stack: string } };
    expect(error.err.type).toBe('Error');
    expect(error.err.message.length).toBeLessThan(logLimits.stringChars + 40);
  });

  it('shortens long arrays and wide objects, and still redacts secrets', () => {
    const { logger, lines } = capturingLogger();
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));

    logger.info({ items: Array.from({ length: 100_000 }, (_, i) => i), wide, password: 'hunter2' }, 'big');

    const line = lines[0] ?? '';
    expect(line.length).toBeLessThan(4 * 1024);
    const parsed = JSON.parse(line) as { items: unknown[]; wide: Record<string, unknown>; password: string };
    expect(parsed.items).toHaveLength(logLimits.arrayItems + 1);
    expect(Object.keys(parsed.wide)).toHaveLength(logLimits.objectKeys + 1);
    expect(parsed.password).toBe('[redacted]');
    expect(line).not.toContain('hunter2');
  });
});
