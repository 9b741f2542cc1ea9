import { describe, expect, it } from 'vitest';
import { takeBytes } from './bytes.js';

describe('takeBytes', () => {
  it('takes across chunks, splits the last one, and leaves the rest queued', () => {
    const queue = [Buffer.from('abc'), Buffer.from('defg'), Buffer.from('h')];
    expect(takeBytes(queue, 5).toString()).toBe('abcde');
    expect(queue.map((b) => b.toString())).toEqual(['fg', 'h']);
    expect(takeBytes(queue, 10).toString()).toBe('fgh');
    expect(queue).toEqual([]);
    expect(takeBytes(queue, 3).length).toBe(0);
  });
});
