import { describe, expect, it } from 'vitest';
import { evaluateHttp, parseCheckTarget, type HttpExpectation } from '@svc/protocol/node/checks';
import { notRun } from './check-agent-probe.js';
import { nextState } from './check-runner.js';

describe('evaluateHttp', () => {
  const any: HttpExpectation = { status: null, body: null };
  const table: [string, number, string, HttpExpectation, string | null][] = [
    ['200 with no expectation', 200, '', any, null],
    ['301 counts as up by default', 301, '', any, null],
    ['404 is down by default', 404, '', any, 'status 404, expected 2xx or 3xx'],
    ['503 when 503 is expected', 503, '', { status: [503], body: null }, null],
    ['200 when only 204 is expected', 200, '', { status: [204], body: null }, 'status 200, expected 204'],
    ['the body holds the text', 200, 'db: ok', { status: null, body: 'db: ok' }, null],
    [
      'the body lacks the text',
      200,
      'db: down',
      { status: null, body: 'db: ok' },
      'the body does not contain the expected text',
    ],
    [
      'a wrong status wins over the body',
      500,
      'db: ok',
      { status: null, body: 'db: ok' },
      'status 500, expected 2xx or 3xx',
    ],
  ];
  it.each(table)('%s', (_name, status, body, expect_, error) => {
    const verdict = evaluateHttp(status, body, expect_);
    expect(verdict.ok ? null : verdict.error).toBe(error);
  });
});

describe('parseCheckTarget', () => {
  const table: [string, 'http' | 'tcp' | 'ping', string, string | null][] = [
    ['https URL', 'http', 'https://example.com/health#x', null],
    ['ftp refused', 'http', 'ftp://example.com/', 'the scheme must be http or https'],
    ['credentials refused', 'http', 'http://a:b@example.com/', 'credentials in the URL are not accepted'],
    ['tcp with IPv6', 'tcp', '[fd00::1]:5432', null],
    ['tcp without port', 'tcp', 'db.lan', 'give host:port'],
    ['tcp port 0', 'tcp', 'db.lan:0', 'the port must be 1 to 65535'],
    ['ping name', 'ping', 'nas.lan', null],
    ['ping garbage', 'ping', 'nas lan; rm -rf', 'the host is not a name or an address'],
    ['ping option-looking host', 'ping', '-f', 'the host is not a name or an address'],
  ];
  it.each(table)('%s', (_name, kind, text, problem) => {
    const parsed = parseCheckTarget(kind, text);
    expect(parsed.ok ? null : parsed.problem).toBe(problem);
  });
});

describe('nextState', () => {
  const now = new Date('2026-11-23T12:00:00.000Z');
  const base = {
    status: 'up',
    consecutive_failures: 0,
    cert_warn_days: 14,
    cert_warned_for: null,
    cert_expires_at: null,
  };
  const ok = {
    ran: true as const,
    ok: true,
    latencyMs: 5,
    statusCode: 200,
    error: null,
    certExpiresAt: null,
  };
  const bad = { ...ok, ok: false, error: 'status 500' };

  it('the first failure after up is a transition; the next ones count', () => {
    const first = nextState(base, bad, now);
    expect(first.transition).toBe('failed');
    expect(first.changes).toMatchObject({ status: 'down', consecutive_failures: 1 });
    const second = nextState({ ...base, status: 'down', consecutive_failures: 1 }, bad, now);
    expect(second.transition).toBeNull();
    expect(second.changes.consecutive_failures).toBe(2);
    expect(nextState({ ...base, status: 'down', consecutive_failures: 2 }, ok, now).transition).toBe(
      'recovered',
    );
  });

  it('a run that did not happen is unknown, keeps the failures, and neither fails again nor skips a recovery', () => {
    const down = { ...base, status: 'down', consecutive_failures: 3 };
    const skipped = nextState(down, notRun('not run: asset a (ast_1) is offline'), now);
    expect(skipped.transition).toBeNull();
    expect(skipped.changes).toMatchObject({
      status: 'unknown',
      last_error: 'not run: asset a (ast_1) is offline',
    });
    expect(skipped.changes.consecutive_failures).toBeUndefined();
    const after = { ...down, status: 'unknown' };
    expect(nextState(after, bad, now).transition).toBeNull();
    expect(nextState(after, ok, now).transition).toBe('recovered');
    expect(nextState({ ...base, status: 'unknown' }, bad, now).transition).toBe('failed');
  });

  it('warns once per certificate inside the window, not outside it', () => {
    const soon = new Date(now.getTime() + 3 * 86_400_000).toISOString();
    const far = new Date(now.getTime() + 30 * 86_400_000).toISOString();
    expect(nextState(base, { ...ok, certExpiresAt: soon }, now).certWarning).toEqual({
      expiresAt: soon,
      daysLeft: 3,
    });
    expect(
      nextState({ ...base, cert_warned_for: soon }, { ...ok, certExpiresAt: soon }, now).certWarning,
    ).toBeNull();
    expect(nextState(base, { ...ok, certExpiresAt: far }, now).certWarning).toBeNull();
  });
});
