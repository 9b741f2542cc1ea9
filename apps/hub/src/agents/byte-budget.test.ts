import { describe, expect, it } from 'vitest';
import { agentLimits } from '@svc/protocol';
import { createByteBudgets, replyAllowance } from './byte-budget.js';

describe('agent byte budget', () => {
  it('lets a reply draw what its request allows, JSON escaping and envelope included', () => {
    const execBytes = replyAllowance('exec.run', { command: 'x', timeout_ms: 1, max_output_bytes: 1024 });
    expect(execBytes).toBeGreaterThanOrEqual(2 * 1024 * 6);
    expect(execBytes).toBeLessThan(128 * 1024);
    expect(replyAllowance('exec.run', { command: 'x', timeout_ms: 1, max_output_bytes: 1024 * 1024 })).toBe(
      2 * 1024 * 1024 * 6 + 64 * 1024,
    );
    const read = replyAllowance('files.read', { path: '/a', max_bytes: agentLimits.fileBytes });
    expect(read).toBeGreaterThan((agentLimits.fileBytes * 4) / 3);
    expect(read).toBeLessThanOrEqual(agentLimits.frameBytes);
    expect(replyAllowance('processes.list', {})).toBe(agentLimits.frameBytes);
    expect(replyAllowance('power.reboot', {})).toBeLessThanOrEqual(64 * 1024);
  });

  it('refills per asset up to the burst, goes below zero on an overdraft, and forgets full idle buckets', () => {
    const budgets = createByteBudgets({ bytesPerSecond: 1000, burstBytes: 10_000 });
    expect(budgets.available('a', 0)).toBe(10_000);
    expect(budgets.spend('a', 15_000, 0)).toBe(-5_000);
    expect(budgets.available('a', 1_000)).toBe(-4_000);
    expect(budgets.available('b', 1_000)).toBe(10_000);
    expect(budgets.available('a', 100_000)).toBe(10_000);
    budgets.sweep(100_000, (id) => id === 'b');
    expect(budgets.size).toBe(1);
  });
});
