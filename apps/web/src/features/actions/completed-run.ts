import type { ExecResult, ExecSummary } from '@svc/protocol';
import type { RunState } from '../run/run-state';

/** A run whose results all came in one answer (a saved action, a schedule's run), shown as the Run page does. */
export function completedRun(results: readonly ExecResult[], summary: ExecSummary | null): RunState {
  const ids = results.map((r) => r.asset_id);
  return {
    targets: ids,
    results: new Map(results.map((r) => [r.asset_id, r])),
    arrived: ids,
    summary,
    running: false,
  };
}
