/**
 * The state of one run on the Run page: the targets it was sent to (when known beforehand), the results as
 * they arrive, and the end (the hub's summary, or what broke). Pure, so the page's bookkeeping is tested
 * without a browser.
 */
import type { ExecResult, ExecSummary } from '@svc/protocol';

export interface RunState {
  /** Targets known before the first result (picked assets, a group's members), in that order. */
  targets: string[];
  results: Map<string, ExecResult>;
  /** Asset ids in the order their results arrived. */
  arrived: string[];
  summary: ExecSummary | null;
  running: boolean;
}

export function startRun(targets: readonly string[]): RunState {
  return { targets: [...targets], results: new Map(), arrived: [], summary: null, running: true };
}

export function addResult(state: RunState, result: ExecResult): RunState {
  const results = new Map(state.results);
  results.set(result.asset_id, result);
  const arrived = state.arrived.includes(result.asset_id)
    ? state.arrived
    : [...state.arrived, result.asset_id];
  return { ...state, results, arrived };
}

export function endRun(state: RunState, summary: ExecSummary | null): RunState {
  return { ...state, summary, running: false };
}

/** Rows to show: answered targets first (as they arrived), then those still waiting, in target order. */
export function runRows(state: RunState): { assetId: string; result: ExecResult | null }[] {
  const waiting = state.targets.filter((id) => !state.results.has(id));
  return [
    ...state.arrived.map((assetId) => ({ assetId, result: state.results.get(assetId) ?? null })),
    ...waiting.map((assetId) => ({ assetId, result: null })),
  ];
}

export interface RunTally {
  total: number;
  /** The statuses that occurred, in a fixed order, with how many. */
  counts: { status: ExecResult['status']; n: number }[];
  /** Targets not answered yet while the run lasts. */
  waiting: number;
}

/** How a run stands, from the summary or, while running, from what has arrived. */
export function runTally(state: RunState): RunTally {
  const summary = state.summary ?? countResults([...state.results.values()], state.targets.length);
  return {
    total: summary.total,
    counts: (['ok', 'timeout', 'offline', 'error'] as const)
      .filter((status) => summary[status] > 0)
      .map((status) => ({ status, n: summary[status] })),
    waiting: state.running ? summary.total - state.results.size : 0,
  };
}

function countResults(results: readonly ExecResult[], expected: number): ExecSummary {
  const counts: ExecSummary = {
    total: Math.max(expected, results.length),
    ok: 0,
    timeout: 0,
    offline: 0,
    error: 0,
  };
  for (const r of results) counts[r.status] += 1;
  return counts;
}
