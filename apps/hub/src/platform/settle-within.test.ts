import { describe, expect, it } from 'vitest';
import { settleWithin } from './settle-within.js';

describe('settleWithin', () => {
  it('ends when the work has settled, failures included', async () => {
    const started = Date.now();
    await settleWithin([Promise.resolve(1), Promise.reject(new Error('failed'))], 5_000);
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('ends after the bound when the work never settles', async () => {
    const started = Date.now();
    await settleWithin([new Promise(() => undefined)], 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
  });
});
