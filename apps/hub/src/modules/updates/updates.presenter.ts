/** Rows of the update tables as the interface shows them, and what is stored of an agent's answer. */
import {
  updateRunLimits,
  type AssetUpdateStatus,
  type AssetUpdates,
  type AvailableUpdate,
  type PackageManager,
  type PlannedChange,
  type UpdateRun,
  type UpdateRunCounts,
  type UpdateRunMode,
  type UpdateRunStart,
  type UpdateRunStatus,
  type UpdateSelection,
  type UpdateTargetResult,
  type UpdateTargetStatus,
  type UpdateTargetSummary,
} from '@svc/protocol';
import { readStringList } from '../../platform/db/paging.js';
import type { UpdateReportRow, UpdateRunRow, UpdateTargetRow } from './updates.repository.js';

const bool = (v: number | null): boolean | null => (v === null ? null : v === 1);

function readJsonArray<T>(text: string): T[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? (value as T[]) : [];
  } catch {
    return [];
  }
}

export function presentStatus(row: Omit<UpdateReportRow, 'packages'>, assetName: string): AssetUpdateStatus {
  return {
    asset_id: row.asset_id,
    asset_name: assetName,
    supported: row.manager !== null,
    manager: row.manager as PackageManager | null,
    updates: row.updates,
    security_updates: row.security_updates,
    truncated: row.truncated === 1,
    reboot_required: bool(row.reboot_required),
    last_patched_at: row.last_patched_at,
    checked_at: row.checked_at,
    error: row.error,
  };
}

export function presentAssetUpdates(row: UpdateReportRow, assetName: string): AssetUpdates {
  return { ...presentStatus(row, assetName), packages: readJsonArray<AvailableUpdate>(row.packages) };
}

/** An asset never reported: every count unknown. */
export function emptyReport(assetId: string): UpdateReportRow {
  return {
    asset_id: assetId,
    manager: null,
    updates: null,
    security_updates: null,
    truncated: 0,
    reboot_required: null,
    last_patched_at: null,
    checked_at: null,
    reported_at: null,
    error: null,
    packages: '[]',
  };
}

export const emptyCounts = (): UpdateRunCounts => ({
  total: 0,
  pending: 0,
  running: 0,
  ok: 0,
  failed: 0,
  offline: 0,
  skipped: 0,
  cancelled: 0,
});

export function countsFrom(byStatus: ReadonlyMap<string, number> | undefined): UpdateRunCounts {
  const counts = emptyCounts();
  for (const [status, n] of byStatus ?? []) {
    if (status in counts && status !== 'total') counts[status as UpdateTargetStatus] += n;
    counts.total += n;
  }
  return counts;
}

export function presentRun(row: UpdateRunRow, counts: UpdateRunCounts): UpdateRun {
  return {
    id: row.id,
    mode: row.mode as UpdateRunMode,
    selection: row.selection as UpdateSelection,
    packages: readStringList(row.packages),
    reboot_if_required: row.reboot_if_required === 1,
    refresh: row.refresh === 1,
    concurrency: row.concurrency,
    max_failures: row.max_failures,
    timeout_minutes: row.timeout_minutes,
    targets: row.targets === null ? null : readStringList(row.targets),
    group: row.group_id,
    start: row.start as UpdateRunStart,
    scheduled_at: row.scheduled_at,
    window_id: row.window_id,
    window_ends_at: row.window_ends_at,
    status: row.status as UpdateRunStatus,
    status_reason: row.status_reason,
    counts,
    created_by: row.created_by,
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
  };
}

export function presentTargetSummary(
  row: Omit<UpdateTargetRow, 'output' | 'change_list'>,
): UpdateTargetSummary {
  return {
    asset_id: row.asset_id,
    asset_name: row.asset_name,
    status: row.status as UpdateTargetStatus,
    manager: row.manager as PackageManager | null,
    changes: row.changes,
    exit_code: row.exit_code,
    timed_out: row.timed_out === 1,
    reboot_required: bool(row.reboot_required),
    rebooting: row.rebooting === 1,
    error: row.error,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration_ms: row.duration_ms,
  };
}

export function presentTargetResult(row: UpdateTargetRow, mode: UpdateRunMode): UpdateTargetResult {
  return {
    ...presentTargetSummary(row),
    run_id: row.run_id,
    mode,
    change_list: readJsonArray<PlannedChange>(row.change_list),
    changes_truncated: row.changes_truncated === 1,
    output: row.output,
    output_truncated: row.output_truncated === 1,
  };
}

/** The end of the manager's output, at most updateRunLimits.storedOutputBytes of UTF-8. */
export function storedOutput(output: string): { text: string; cut: boolean } {
  const bytes = Buffer.from(output, 'utf8');
  if (bytes.length <= updateRunLimits.storedOutputBytes) return { text: output, cut: false };
  // Cut on a character boundary: skip continuation bytes at the start of the kept end.
  let start = bytes.length - updateRunLimits.storedOutputBytes;
  while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start += 1;
  return { text: bytes.subarray(start).toString('utf8'), cut: true };
}

/** A target row's outcome before (or without) an answer from its package manager. */
export const noOutcome = {
  manager: null,
  changes: 0,
  change_list: '[]',
  changes_truncated: 0,
  exit_code: null,
  timed_out: 0,
  reboot_required: null,
  rebooting: 0,
  output: '',
  output_truncated: 0,
  error: null,
} as const satisfies Partial<UpdateTargetRow>;

/** A pending target row of a new run. */
export function pendingTarget(
  runId: string,
  assetId: string,
  name: string,
  position: number,
): UpdateTargetRow {
  return {
    run_id: runId,
    asset_id: assetId,
    position,
    asset_name: name,
    status: 'pending',
    ...noOutcome,
    started_at: null,
    finished_at: null,
    duration_ms: null,
  };
}
