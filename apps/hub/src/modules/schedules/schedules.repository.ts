import type { Expression, SqlBool } from 'kysely';
import { nodeUnregistered } from '../../platform/cluster/db-node-registry.js';
import type { Executor, ScheduleRunsTable, SchedulesTable } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type ScheduleRow = SchedulesTable;
export type ScheduleRunRow = ScheduleRunsTable;

export async function insertSchedule(db: Executor, row: ScheduleRow): Promise<void> {
  await db.insertInto('schedules').values(row).execute();
}

export async function findSchedule(db: Executor, id: string): Promise<ScheduleRow | undefined> {
  return db.selectFrom('schedules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listSchedules(db: Executor): Promise<ScheduleRow[]> {
  return db.selectFrom('schedules').selectAll().orderBy('name').orderBy('id').execute();
}

export async function updateSchedule(db: Executor, id: string, changes: Partial<ScheduleRow>): Promise<void> {
  await db.updateTable('schedules').set(changes).where('id', '=', id).execute();
}

export async function deleteSchedule(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('schedule_runs').where('schedule_id', '=', id).execute();
  await db.deleteFrom('schedules').where('id', '=', id).execute();
}

/** Schedules whose awaited tick is at or before `nowIso`, oldest first. */
export async function dueSchedules(db: Executor, nowIso: string, limit: number): Promise<ScheduleRow[]> {
  return db
    .selectFrom('schedules')
    .selectAll()
    .where('next_run_at', 'is not', null)
    .where('next_run_at', '<=', nowIso)
    .orderBy('next_run_at')
    .limit(limit)
    .execute();
}

/**
 * Moves a schedule from the tick it awaited to the next one, only if it still awaits `tick`: the one write
 * that decides who runs a tick. True when this caller claimed it.
 */
export async function claimTick(
  db: Executor,
  id: string,
  tick: string,
  next: string | null,
  ran: boolean,
  /** This process's lease (decision 0053): a process whose lease ran out claims nothing. */
  fence: Expression<SqlBool>,
): Promise<boolean> {
  const result = await db
    .updateTable('schedules')
    .set(ran ? { next_run_at: next, last_run_at: tick } : { next_run_at: next })
    .where('id', '=', id)
    .where('next_run_at', '=', tick)
    .where(fence)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertRun(db: Executor, row: ScheduleRunRow): Promise<void> {
  await db.insertInto('schedule_runs').values(row).execute();
}

/**
 * Records how a run ended, only while it is still `running` and `fence` (this process's lease, decision 0053)
 * holds: a run the survivors of this process's stall reported interrupted keeps that. False when refused.
 */
export async function finishRun(
  db: Executor,
  id: string,
  changes: Pick<ScheduleRunRow, 'status' | 'finished_at' | 'summary' | 'results' | 'error'>,
  fence: Expression<SqlBool>,
): Promise<boolean> {
  const result = await db
    .updateTable('schedule_runs')
    .set(changes)
    .where('id', '=', id)
    .where('status', '=', 'running')
    .where(fence)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Runs a crash left `running`: they are not replayed, they are reported interrupted. */
/**
 * Runs left `running` by processes that are no longer running them: those of nodes not in `live` (and those
 * from before runs named their node). A cluster of one passes itself only, so every earlier run is reported.
 */
export async function interruptRunning(
  db: Executor,
  nowIso: string,
  live: readonly string[],
): Promise<number> {
  let query = db.updateTable('schedule_runs').set(interrupted(nowIso)).where('status', '=', 'running');
  if (live.length > 0)
    query = query.where((eb) => eb.or([eb('node_id', 'is', null), eb('node_id', 'not in', [...live])]));
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** The runs a node that is gone left `running` (decision 0040). */
export async function interruptRunsOf(db: Executor, nowIso: string, nodeId: string): Promise<number> {
  const result = await db
    .updateTable('schedule_runs')
    .set(interrupted(nowIso))
    .where('status', '=', 'running')
    .where('node_id', '=', nodeId)
    // A node that registered again meanwhile (it had only stalled) is still running them (decision 0053).
    .where(nodeUnregistered(nodeId))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

const interrupted = (nowIso: string) => ({
  status: 'interrupted',
  finished_at: nowIso,
  error: 'the hub stopped while this run was in progress; it was not run again',
});

export async function listRuns(
  db: Executor,
  scheduleId: string,
  window: Window,
): Promise<{ rows: ScheduleRunRow[]; total: number }> {
  return listPage(
    db
      .selectFrom('schedule_runs')
      .selectAll()
      .where('schedule_id', '=', scheduleId)
      .orderBy('tick_at', 'desc')
      .orderBy('id', 'desc'),
    window,
  );
}

/** A schedule that runs the saved action, if any. */
export async function findScheduleUsingAction(db: Executor, actionId: string): Promise<string | null> {
  const row = await db
    .selectFrom('schedules')
    .select('id')
    .where('action_id', '=', actionId)
    .executeTakeFirst();
  return row?.id ?? null;
}
