import { describe, expect, it } from 'vitest';
import { systemOwnerContext } from '../../access/principal.js';
import type { AuditEntry } from '../audit/audit.service.js';
import { createReadAudit } from './read-audit.js';

const entry = (targetId: string): AuditEntry => ({ action: 'mcp.tool_call', targetId });

describe('read audit batches', () => {
  it('writes the queued records in one batch, in order, after the interval or when full', async () => {
    const batches: string[][] = [];
    const audit = {
      recordOfMany: (items: readonly { entry: AuditEntry }[]) => {
        batches.push(items.map((item) => item.entry.targetId ?? ''));
        return Promise.resolve();
      },
    };
    const reads = createReadAudit({ audit, onError: () => undefined, intervalMs: 10, maxBatch: 3 });
    const ctx = systemOwnerContext();
    reads.record(ctx, entry('a'));
    reads.record(ctx, entry('b'));
    expect(batches).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(batches).toEqual([['a', 'b']]);
    reads.record(ctx, entry('c'));
    reads.record(ctx, entry('d'));
    reads.record(ctx, entry('e'));
    await reads.flush();
    expect(batches).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
  });

  it('reports a failed write and keeps writing the next batches', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const audit = {
      recordOfMany: () => {
        calls += 1;
        return calls === 1 ? Promise.reject(new Error('disk full')) : Promise.resolve();
      },
    };
    const reads = createReadAudit({ audit, onError: (error) => errors.push(error), intervalMs: 1000 });
    reads.record(systemOwnerContext(), entry('a'));
    await reads.flush();
    reads.record(systemOwnerContext(), entry('b'));
    await reads.flush();
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
  });
});
