/** The update tables' queries: reports per asset, runs, and one row per target of a run (decision 0081). */
import type { Expression, SqlBool } from 'kysely';
import { nodeUnregistered } from '../../platform/cluster/db-node-registry.js';
import type {
  Executor,
  UpdateReportsTable,
  UpdateRunTargetsTable,
  UpdateRunsTable,
} from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type UpdateReportRow = UpdateReportsTable;
export type UpdateRunRow = UpdateRunsTable;
export type UpdateTargetRow = UpdateRunTargetsTable;

/** Statuses of a run that has ended. */
export const endedRunStatuses = ['completed', 'stopped', 'cancelled', 'failed'] as const;

// ---- reports ----

export async function findReport(db: Executor, assetId: string): Promise<UpdateReportRow | undefined> {
  return db.selectFrom('update_reports').selectAll().where('asset_id', '=', assetId).executeTakeFirst();
}

export async function upsertReport(db: Executor, row: UpdateReportRow): Promise<void> {
  const { asset_id: _id, ...rest } = row;
  await db
    .insertInto('update_reports')
    .values(row)
    .onConflict((oc) => oc.column('asset_id').doUpdateSet(rest))
    .execute();
}

/** Records a failed attempt: the counts of the report before stay. */
export async function recordReportError(
  db: Executor,
  assetId: string,
  checkedAt: string,
  error: string,
): Promise<void> {
  await db
    .insertInto('update_reports')
    .values({
      asset_id: assetId,
      manager: null,
      updates: null,
      security_updates: null,
      truncated: 0,
      reboot_required: null,
      last_patched_at: null,
      checked_at: checkedAt,
      reported_at: null,
      error,
      packages: '[]',
    })
    .onConflict((oc) => oc.column('asset_id').doUpdateSet({ checked_at: checkedAt, error }))
    .execute();
}

/** When each of `assetIds` was last asked (absent: never). */
export async function checkedAtOf(db: Executor, assetIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < assetIds.length; i += 500) {
    const rows = await db
      .selectFrom('update_reports')
      .select(['asset_id', 'checked_at'])
      .where('asset_id', 'in', assetIds.slice(i, i + 500))
      .execute();
    for (const r of rows) if (r.checked_at !== null) out.set(r.asset_id, r.checked_at);
  }
  return out;
}

export interface FleetFilter {
  /** null: every asset; otherwise only these. */
  assetIds: readonly string[] | null;
  needsUpdates?: boolean | undefined;
  security?: boolean | undefined;
  rebootRequired?: boolean | undefined;
  supported?: boolean | undefined;
}

export async function listReports(
  db: Executor,
  filter: FleetFilter,
  window: Window,
): Promise<{ rows: Omit<UpdateReportRow, 'packages'>[]; total: number }> {
  let query = db
    .selectFrom('update_reports')
    .select([
      'asset_id',
      'manager',
      'updates',
      'security_updates',
      'truncated',
      'reboot_required',
      'last_patched_at',
      'checked_at',
      'reported_at',
      'error',
    ]);
  if (filter.assetIds !== null) {
    if (filter.assetIds.length === 0) return { rows: [], total: 0 };
    query = query.where('asset_id', 'in', [...filter.assetIds]);
  }
  if (filter.needsUpdates === true) query = query.where('updates', '>', 0);
  if (filter.needsUpdates === false) query = query.where('updates', '=', 0);
  if (filter.security === true) query = query.where('security_updates', '>', 0);
  if (filter.security === false)
    query = query.where((eb) => eb.or([eb('security_updates', '=', 0), eb('security_updates', 'is', null)]));
  if (filter.rebootRequired !== undefined)
    query = query.where('reboot_required', '=', filter.rebootRequired ? 1 : 0);
  if (filter.supported === true) query = query.where('manager', 'is not', null);
  if (filter.supported === false) query = query.where('manager', 'is', null);
  return listPage(
    query
      .orderBy((eb) => eb.fn.coalesce('security_updates', eb.val(-1)), 'desc')
      .orderBy((eb) => eb.fn.coalesce('updates', eb.val(-1)), 'desc')
      .orderBy('asset_id'),
    window,
  );
}

export async function deleteReport(db: Executor, assetId: string): Promise<void> {
  await db.deleteFrom('update_reports').where('asset_id', '=', assetId).execute();
}

// ---- runs ----

export async function insertRun(db: Executor, row: UpdateRunRow, targets: UpdateTargetRow[]): Promise<void> {
  await db.insertInto('update_runs').values(row).execute();
  for (let i = 0; i < targets.length; i += 200) {
    await db
      .insertInto('update_run_targets')
      .values(targets.slice(i, i + 200))
      .execute();
  }
}

export async function findRun(db: Executor, id: string): Promise<UpdateRunRow | undefined> {
  return db.selectFrom('update_runs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listRuns(
  db: Executor,
  filter: { status?: string | undefined; mode?: string | undefined; asset?: string | undefined },
  window: Window,
): Promise<{ rows: UpdateRunRow[]; total: number }> {
  let query = db.selectFrom('update_runs').selectAll();
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.mode !== undefined) query = query.where('mode', '=', filter.mode);
  if (filter.asset !== undefined) {
    const asset = filter.asset;
    query = query.where('id', 'in', (eb) =>
      eb.selectFrom('update_run_targets').select('run_id').where('asset_id', '=', asset),
    );
  }
  return listPage(query.orderBy('created_at', 'desc').orderBy('id', 'desc'), window);
}

/** The target ids of runs, for deciding what a caller limited to some assets may see. */
export async function targetIdsOf(db: Executor, runIds: readonly string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  if (runIds.length === 0) return out;
  const rows = await db
    .selectFrom('update_run_targets')
    .select(['run_id', 'asset_id'])
    .where('run_id', 'in', [...runIds])
    .execute();
  for (const r of rows) {
    const list = out.get(r.run_id) ?? [];
    list.push(r.asset_id);
    out.set(r.run_id, list);
  }
  return out;
}

export async function countsOf(
  db: Executor,
  runIds: readonly string[],
): Promise<Map<string, Map<string, number>>> {
  const out = new Map<string, Map<string, number>>();
  if (runIds.length === 0) return out;
  const rows = await db
    .selectFrom('update_run_targets')
    .select((eb) => ['run_id', 'status', eb.fn.countAll<string | number>().as('n')])
    .where('run_id', 'in', [...runIds])
    .groupBy(['run_id', 'status'])
    .execute();
  for (const r of rows) {
    const map = out.get(r.run_id) ?? new Map<string, number>();
    map.set(r.status, Number(r.n));
    out.set(r.run_id, map);
  }
  return out;
}

/** Targets of a run in order, without their output and change lists. */
export async function targetSummaries(
  db: Executor,
  runId: string,
): Promise<Omit<UpdateTargetRow, 'output' | 'change_list'>[]> {
  return db
    .selectFrom('update_run_targets')
    .select([
      'run_id',
      'asset_id',
      'position',
      'asset_name',
      'status',
      'manager',
      'changes',
      'changes_truncated',
      'exit_code',
      'timed_out',
      'reboot_required',
      'rebooting',
      'output_truncated',
      'error',
      'started_at',
      'finished_at',
      'duration_ms',
    ])
    .where('run_id', '=', runId)
    .orderBy('position')
    .execute();
}

export async function findTarget(
  db: Executor,
  runId: string,
  assetId: string,
): Promise<UpdateTargetRow | undefined> {
  return db
    .selectFrom('update_run_targets')
    .selectAll()
    .where('run_id', '=', runId)
    .where('asset_id', '=', assetId)
    .executeTakeFirst();
}

/** Moves a pending target on (to running, or straight to an end); false when it was no longer pending. */
export async function updateTarget(
  db: Executor,
  runId: string,
  assetId: string,
  from: string,
  changes: Partial<UpdateTargetRow>,
): Promise<boolean> {
  const result = await db
    .updateTable('update_run_targets')
    .set(changes)
    .where('run_id', '=', runId)
    .where('asset_id', '=', assetId)
    .where('status', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Every target of a run still `pending` gets `status` (skipped, cancelled), with the reason. */
export async function endPending(
  db: Executor,
  runId: string,
  status: string,
  error: string,
  nowIso: string,
): Promise<number> {
  const result = await db
    .updateTable('update_run_targets')
    .set({ status, error, finished_at: nowIso })
    .where('run_id', '=', runId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Scheduled runs whose time has come, oldest first. */
export async function dueRuns(db: Executor, nowIso: string, limit: number): Promise<UpdateRunRow[]> {
  return db
    .selectFrom('update_runs')
    .selectAll()
    .where('status', '=', 'scheduled')
    .where('scheduled_at', '<=', nowIso)
    .orderBy('scheduled_at')
    .limit(limit)
    .execute();
}

/**
 * Moves a scheduled run to `running` on this node: the one write that decides which process runs it (across
 * processes sharing a database, one UPDATE wins), fenced by this process's lease (decision 0053).
 */
export async function claimScheduled(
  db: Executor,
  id: string,
  nodeId: string | null,
  nowIso: string,
  fence: Expression<SqlBool>,
): Promise<boolean> {
  const result = await db
    .updateTable('update_runs')
    .set({ status: 'running', node_id: nodeId, started_at: nowIso })
    .where('id', '=', id)
    .where('status', '=', 'scheduled')
    .where(fence)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ends a run that is scheduled or running; false when it had already ended (or the fence refused). */
export async function endRun(
  db: Executor,
  id: string,
  changes: Pick<UpdateRunRow, 'status' | 'status_reason' | 'finished_at'>,
  fence?: Expression<SqlBool>,
): Promise<boolean> {
  let query = db
    .updateTable('update_runs')
    .set(changes)
    .where('id', '=', id)
    .where('status', 'in', ['scheduled', 'running']);
  if (fence) query = query.where(fence);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function runStatus(db: Executor, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('update_runs').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}

/** Runs left `running` by nodes not in `live` (or, with `gone`, by that one node once unregistered). */
export async function orphanedRuns(db: Executor, live: readonly string[], gone?: string): Promise<string[]> {
  let query = db.selectFrom('update_runs').select('id').where('status', '=', 'running');
  if (gone !== undefined) query = query.where('node_id', '=', gone).where(nodeUnregistered(gone));
  else if (live.length > 0)
    query = query.where((eb) => eb.or([eb('node_id', 'is', null), eb('node_id', 'not in', [...live])]));
  return (await query.execute()).map((r) => r.id);
}

/** Ended runs beyond the newest `keep`, removed with their targets. */
export async function pruneRuns(db: Executor, keep: number): Promise<number> {
  const old = await db
    .selectFrom('update_runs')
    .select('id')
    .where('status', 'in', [...endedRunStatuses])
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(keep)
    .limit(1000)
    .execute();
  if (old.length === 0) return 0;
  const ids = old.map((r) => r.id);
  await db.deleteFrom('update_run_targets').where('run_id', 'in', ids).execute();
  await db.deleteFrom('update_runs').where('id', 'in', ids).execute();
  return ids.length;
}

/** An asset deleted: its report goes, and it leaves the runs' target lists (their other targets stay). */
export async function forgetAsset(db: Executor, assetId: string): Promise<void> {
  await db.deleteFrom('update_reports').where('asset_id', '=', assetId).execute();
  await db.deleteFrom('update_run_targets').where('asset_id', '=', assetId).execute();
}
