import { describe, expect, it } from 'vitest';
import type { ExecResult } from '@svc/protocol';
import { addResult, endRun, runRows, runTally, startRun } from './run-state';

function result(assetId: string, status: ExecResult['status']): ExecResult {
  return {
    asset_id: assetId,
    status,
    exit_code: status === 'ok' ? 0 : null,
    stdout: '',
    stderr: '',
    truncated: false,
    duration_ms: 3,
    error: status === 'ok' ? null : 'asset is offline',
  };
}

describe('a run on the Run page', () => {
  it('lists answered targets as they arrive, then those still waiting', () => {
    let state = startRun(['a', 'b', 'c']);
    state = addResult(state, result('c', 'ok'));

    expect(runRows(state).map((r) => [r.assetId, r.result?.status ?? 'waiting'])).toEqual([
      ['c', 'ok'],
      ['a', 'waiting'],
      ['b', 'waiting'],
    ]);
    expect(runTally(state)).toEqual({ total: 3, counts: [{ status: 'ok', n: 1 }], waiting: 2 });
  });

  it('ends with the hub summary', () => {
    let state = startRun(['a', 'b']);
    state = addResult(state, result('a', 'ok'));
    state = addResult(state, result('b', 'offline'));
    state = endRun(state, { total: 2, ok: 1, timeout: 0, offline: 1, error: 0 });

    expect(state.running).toBe(false);
    expect(runTally(state)).toEqual({
      total: 2,
      counts: [
        { status: 'ok', n: 1 },
        { status: 'offline', n: 1 },
      ],
      waiting: 0,
    });
  });

  it('takes results for targets it did not know beforehand', () => {
    let state = startRun([]);
    state = addResult(state, result('x', 'timeout'));

    expect(runRows(state).map((r) => r.assetId)).toEqual(['x']);
    expect(runTally(state)).toEqual({ total: 1, counts: [{ status: 'timeout', n: 1 }], waiting: 0 });
  });
});
