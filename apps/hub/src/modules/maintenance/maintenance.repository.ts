import type {
  Executor,
  MaintenanceOccurrencesTable,
  MaintenanceWindowsTable,
} from '../../platform/db/schema.js';

export type MaintenanceWindowRow = MaintenanceWindowsTable;
export type OccurrenceRow = MaintenanceOccurrencesTable;

/** Every window, by name (a hub holds at most maintenanceLimits.windows of them). */
export async function listWindows(db: Executor): Promise<MaintenanceWindowRow[]> {
  return db.selectFrom('maintenance_windows').selectAll().orderBy('name').orderBy('id').execute();
}

export async function findWindow(db: Executor, id: string): Promise<MaintenanceWindowRow | undefined> {
  return db.selectFrom('maintenance_windows').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countWindows(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('maintenance_windows')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertWindow(db: Executor, row: MaintenanceWindowRow): Promise<void> {
  await db.insertInto('maintenance_windows').values(row).execute();
}

export async function updateWindow(
  db: Executor,
  id: string,
  changes: Partial<Omit<MaintenanceWindowRow, 'id'>>,
): Promise<void> {
  await db.updateTable('maintenance_windows').set(changes).where('id', '=', id).execute();
}

export async function deleteWindow(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('maintenance_windows').where('id', '=', id).execute();
}

/**
 * Records an occurrence as started: true for the one caller whose row went in (across processes, the primary
 * key lets one insert win), so `maintenance.started` is published once.
 */
export async function claimStarted(db: Executor, row: OccurrenceRow): Promise<boolean> {
  const inserted = await db
    .insertInto('maintenance_occurrences')
    .values(row)
    .onConflict((oc) => oc.columns(['window_id', 'starts_at']).doNothing())
    .returning('window_id')
    .execute();
  return inserted.length === 1;
}

/** Occurrences announced as started and not yet as ended. */
export async function openOccurrences(db: Executor): Promise<OccurrenceRow[]> {
  return db.selectFrom('maintenance_occurrences').selectAll().where('ended_at', 'is', null).execute();
}

/** Records an occurrence as ended: true for the one caller that set `ended_at` (published once). */
export async function claimEnded(
  db: Executor,
  windowId: string,
  startsAt: string,
  endedAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('maintenance_occurrences')
    .set({ ended_at: endedAt })
    .where('window_id', '=', windowId)
    .where('starts_at', '=', startsAt)
    .where('ended_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Ended occurrences older than `beforeIso` (kept a while for the record, then removed). */
export async function deleteEndedBefore(db: Executor, beforeIso: string): Promise<number> {
  const result = await db
    .deleteFrom('maintenance_occurrences')
    .where('ended_at', 'is not', null)
    .where('ended_at', '<', beforeIso)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
