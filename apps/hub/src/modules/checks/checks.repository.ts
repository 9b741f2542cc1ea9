import { sql } from 'kysely';
import type { Executor, ServiceCheckResultsTable, ServiceChecksTable } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type CheckRow = ServiceChecksTable;
export type CheckResultRow = ServiceCheckResultsTable;

export async function insertCheck(db: Executor, row: CheckRow): Promise<void> {
  await db.insertInto('service_checks').values(row).execute();
}

export async function findCheck(db: Executor, id: string): Promise<CheckRow | undefined> {
  return db.selectFrom('service_checks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listChecks(db: Executor): Promise<CheckRow[]> {
  return db.selectFrom('service_checks').selectAll().orderBy('name').orderBy('id').execute();
}

/** The enabled checks about these assets. */
export async function checksOfAssets(db: Executor, assetIds: readonly string[]): Promise<CheckRow[]> {
  if (assetIds.length === 0) return [];
  return db
    .selectFrom('service_checks')
    .selectAll()
    .where('asset_id', 'in', [...assetIds])
    .where('enabled', '=', 1)
    .execute();
}

export async function countChecks(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('service_checks')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateCheck(db: Executor, id: string, changes: Partial<CheckRow>): Promise<void> {
  await db.updateTable('service_checks').set(changes).where('id', '=', id).execute();
}

export async function deleteCheck(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('service_check_results').where('check_id', '=', id).execute();
  await db.deleteFrom('service_checks').where('id', '=', id).execute();
}

/** Enabled checks whose run is due at `nowIso`, the most overdue first. */
export async function dueChecks(db: Executor, nowIso: string, limit: number): Promise<CheckRow[]> {
  return db
    .selectFrom('service_checks')
    .selectAll()
    .where('next_run_at', 'is not', null)
    .where('next_run_at', '<=', nowIso)
    .orderBy('next_run_at')
    .limit(limit)
    .execute();
}

/**
 * Moves a check from the run it awaited to the next one, only while it still awaits `due`: the one write that
 * decides who runs it (two passes, or two hub processes during a lease handover, cannot both win).
 */
export async function claimRun(db: Executor, id: string, due: string, next: string): Promise<boolean> {
  const result = await db
    .updateTable('service_checks')
    .set({ next_run_at: next })
    .where('id', '=', id)
    .where('next_run_at', '=', due)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertResult(db: Executor, row: CheckResultRow): Promise<void> {
  await db.insertInto('service_check_results').values(row).execute();
}

/** Keeps the newest `keep` results of a check; returns how many went. */
export async function trimResults(db: Executor, checkId: string, keep: number): Promise<number> {
  const boundary = await db
    .selectFrom('service_check_results')
    .select(['at', 'id'])
    .where('check_id', '=', checkId)
    .orderBy('at', 'desc')
    .orderBy('id', 'desc')
    .offset(keep)
    .limit(1)
    .executeTakeFirst();
  if (!boundary) return 0;
  const result = await db
    .deleteFrom('service_check_results')
    .where('check_id', '=', checkId)
    .where((eb) =>
      eb.or([eb('at', '<', boundary.at), eb.and([eb('at', '=', boundary.at), eb('id', '<=', boundary.id)])]),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteResultsBefore(db: Executor, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('service_check_results')
    .where('id', 'in', (sub) =>
      sub
        .selectFrom('service_check_results')
        .select('id')
        .where('at', '<', cutoff)
        .orderBy('at')
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function listResults(
  db: Executor,
  checkId: string,
  window: Window,
): Promise<{ rows: CheckResultRow[]; total: number }> {
  return listPage(
    db
      .selectFrom('service_check_results')
      .selectAll()
      .where('check_id', '=', checkId)
      .orderBy('at', 'desc')
      .orderBy('id', 'desc'),
    window,
  );
}

/** Runs that happened and runs that were up since `sinceIso`, per check among `ids`. */
export async function uptimeSince(
  db: Executor,
  ids: readonly string[],
  sinceIso: string,
): Promise<Map<string, { total: number; up: number }>> {
  const out = new Map<string, { total: number; up: number }>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('service_check_results')
    .select((eb) => [
      'check_id',
      eb.fn.countAll<number | string>().as('total'),
      eb.fn.sum<number | string>(sql<number>`ok`).as('up'),
    ])
    .where('check_id', 'in', [...ids])
    .where('at', '>=', sinceIso)
    // A run that did not happen (its agent offline) is neither up nor down (decision 0084).
    .where('ran', '=', 1)
    .groupBy('check_id')
    .execute();
  for (const row of rows) out.set(row.check_id, { total: Number(row.total), up: Number(row.up) });
  return out;
}
