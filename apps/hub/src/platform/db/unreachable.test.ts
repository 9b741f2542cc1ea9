/**
 * Which failures are "the database cannot be reached" (503 with Retry-After) and which stay what they were: a
 * refused statement is not an outage, and a refused connect to some other upstream is not the database.
 */
import { describe, expect, it } from 'vitest';
import { databaseUnavailable, isDatabaseUnreachable, markDatabaseUnreachable } from './unreachable.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnreachable', () => {
  it('knows a server shutting down, starting up or out of connections', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300'])
      expect(isDatabaseUnreachable(withCode(code))).toBe(true);
  });

  it("knows node-postgres's broken connections", () => {
    expect(isDatabaseUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(
      isDatabaseUnreachable(new Error('Client has encountered a connection error and is not queryable')),
    ).toBe(true);
  });

  it('takes a connect error as the database only where the pool marked it', () => {
    const refused = withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
    expect(isDatabaseUnreachable(refused)).toBe(false);
    expect(isDatabaseUnreachable(markDatabaseUnreachable(refused))).toBe(true);
  });

  it('leaves refused statements and other failures alone', () => {
    expect(isDatabaseUnreachable(withCode('23505', 'duplicate key'))).toBe(false);
    expect(isDatabaseUnreachable(new TypeError('x is undefined'))).toBe(false);
    expect(isDatabaseUnreachable('Connection terminated')).toBe(false);
  });

  it('answers 503 unavailable with Retry-After', () => {
    const error = databaseUnavailable();
    expect(error).toMatchObject({ code: 'unavailable', status: 503, headers: { 'Retry-After': '5' } });
    expect(error.message).toMatch(/database cannot be reached/);
  });
});
