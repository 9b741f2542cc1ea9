import { describe, expect, it } from 'vitest';
import type { ExecResult } from '@svc/protocol';
import { fitJson, ResultBudget } from './result-budget.js';

function result(stdout: string, stderr = ''): ExecResult {
  return {
    asset_id: 'ast_x',
    status: 'ok',
    exit_code: 0,
    stdout,
    stderr,
    truncated: false,
    duration_ms: 1,
    error: null,
  };
}

const jsonBytes = (text: string) => Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;

describe('fitJson', () => {
  it('costs exactly what JSON.stringify writes, for every kind of character', () => {
    for (const text of [
      '',
      'plain',
      '€ and 😀',
      '"quoted" \\ back',
      '\n\t\r\b\f',
      '\u0000\u0001\u001f',
      'a\ud800b\udc00',
    ]) {
      expect(fitJson(text, Number.MAX_SAFE_INTEGER), JSON.stringify(text)).toEqual({
        text,
        cost: jsonBytes(text),
        cut: false,
      });
    }
  });

  it('cuts to the longest prefix that fits, never inside a surrogate pair', () => {
    expect(fitJson('abc', 2)).toEqual({ text: 'ab', cost: 2, cut: true });
    expect(fitJson('\u0000\u0000', 11)).toEqual({ text: '\u0000', cost: 6, cut: true });
    expect(fitJson('a😀b', 4)).toEqual({ text: 'a', cost: 1, cut: true });
    expect(fitJson('a😀b', 5)).toEqual({ text: 'a😀', cost: 5, cut: true });
    expect(fitJson('x', 0)).toEqual({ text: '', cost: 0, cut: true });
  });
});

describe('ResultBudget', () => {
  it('admits whole results while they fit, then cuts and marks the rest, keeping everything else', () => {
    const budget = new ResultBudget(10);

    const first = budget.admit(result('123456'));
    const second = budget.admit(result('abc', 'defgh'));
    const third = budget.admit({ ...result('more'), exit_code: 3 });

    expect(first).toEqual({ result: result('123456'), bytes: 6 });
    expect(second.result).toMatchObject({ stdout: 'abc', stderr: 'd', truncated: true });
    expect(second.bytes).toBe(4);
    expect(third.result).toEqual({ ...result(''), exit_code: 3, truncated: true });
    expect(budget.peak).toBe(10);
  });

  it('has room again once held bytes are released', () => {
    const budget = new ResultBudget(8);
    const a = budget.admit(result('12345678'));
    budget.release(a.bytes);

    const b = budget.admit(result('abcdefgh'));

    expect(b.result.truncated).toBe(false);
    expect(budget.peak).toBe(8);
  });
});
