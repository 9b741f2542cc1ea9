import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../config/env.js';
import { createLogger } from './logger.js';
import { formatPrettyLine, prettyDestination } from './log-pretty.js';

describe('SVC_LOG_FORMAT=pretty', () => {
  it('writes time, level, request id, message and fields on one line, without colours off a terminal', () => {
    const out: string[] = [];
    const logger = createLogger('info', prettyDestination({ write: (text: string) => out.push(text) }));
    logger.child({ reqId: 'req_abc' }).info({ status: 401, url: '/api/v2/assets' }, 'request');
    logger.warn({ reason: 'two words' }, 'agent closed');

    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[req_abc\] request status=401 url=\/api\/v2\/assets\n$/,
    );
    expect(out[1]).toMatch(/ WARN {2}agent closed reason="two words"\n$/);
    expect(out.join('')).not.toContain('\u001b[');
  });

  it('keeps redaction: a password never reaches the terminal', () => {
    const out: string[] = [];
    const logger = createLogger('info', prettyDestination({ write: (text: string) => out.push(text) }));
    logger.info({ password: 'hunter2', user: 'ann' }, 'sign-in');

    expect(out.join('')).toContain('password=[redacted]');
    expect(out.join('')).not.toContain('hunter2');
  });

  it('prints an error with its stack indented under the line, colours on a terminal', () => {
    const line = JSON.stringify({
      level: 50,
      time: Date.UTC(2026, 10, 26, 1, 2, 3, 4),
      msg: 'request errored',
      err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at x (y.ts:1:1)' },
    });

    const text = formatPrettyLine(line, true);

    expect(text).toContain('01:02:03.004');
    expect(text).toContain('\u001b[31mERROR');
    expect(text).toContain('request errored err=boom\n    Error: boom\n        at x (y.ts:1:1)\n');
  });

  it('passes a line that is not JSON through unchanged', () => {
    expect(formatPrettyLine('plain text', false)).toBe('plain text\n');
  });
});

describe('SVC_LOG_FORMAT parsing', () => {
  it('is json by default (not a terminal), pretty on request, and refuses anything else with the choices named', () => {
    expect(parseEnv({}, '/srv/svc').logFormat).toBe('json');
    expect(parseEnv({ SVC_LOG_FORMAT: 'pretty' }, '/srv/svc').logFormat).toBe('pretty');
    expect(() => parseEnv({ SVC_LOG_FORMAT: 'xml' }, '/srv/svc')).toThrow(
      new ConfigError('SVC_LOG_FORMAT must be one of json, pretty (got "xml")'),
    );
  });

  it('is pretty by default when stdout is a terminal, and what was asked for when set', () => {
    expect(parseEnv({}, '/srv/svc', { stdoutIsTty: true }).logFormat).toBe('pretty');
    expect(parseEnv({ SVC_LOG_FORMAT: '' }, '/srv/svc', { stdoutIsTty: true }).logFormat).toBe('pretty');
    expect(parseEnv({ SVC_LOG_FORMAT: 'json' }, '/srv/svc', { stdoutIsTty: true }).logFormat).toBe('json');
    expect(parseEnv({}, '/srv/svc', { stdoutIsTty: false }).logFormat).toBe('json');
  });
});
