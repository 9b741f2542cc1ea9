import { sql } from 'kysely';
import type { AuditQuery } from '@svc/protocol';
import type { AuditEventsTable, Executor } from '../../platform/db/schema.js';
import { runCompiledOnce } from '../../platform/db/compiled-once.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type AuditRow = AuditEventsTable;

export interface AuditFilter extends AuditQuery {
  /** Only events about these assets; null means no restriction. */
  visibleAssets: readonly string[] | null;
}

const auditColumns = [
  'id',
  'ts',
  'actor_type',
  'actor_id',
  'action',
  'target_type',
  'target_id',
  'asset_id',
  'ip',
  'request_id',
  'detail',
] as const satisfies readonly (keyof AuditRow)[];

/** Rows per INSERT statement: a fan-out to thousands of assets writes one event per asset. */
const insertChunk = 500;

/** Inserts audit rows; full chunks of 500 reuse one compiled statement (compiled-once.ts). */
/** Deletes up to `limit` of the oldest events stamped before `cutoff` (one short statement, by the ts index). */
export async function deleteAuditEventsBefore(db: Executor, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('audit_events')
    .where('id', 'in', (sub) =>
      sub.selectFrom('audit_events').select('id').where('ts', '<', cutoff).orderBy('ts').limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** How many events of one action were recorded at or after `since` (an ISO 8601 time). */
export async function countAuditEvents(db: Executor, action: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('audit_events')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('action', '=', action)
    .where('ts', '>=', since)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

export async function insertAuditEvents(db: Executor, rows: readonly AuditRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += insertChunk) {
    const chunk = rows.slice(i, i + insertChunk);
    if (chunk.length < insertChunk) {
      await db.insertInto('audit_events').values(chunk).execute();
      continue;
    }
    await runCompiledOnce(
      db,
      'audit_events.insert',
      insertChunk,
      auditColumns,
      (markers) =>
        db
          .insertInto('audit_events')
          .values(Array.from({ length: insertChunk }, (_, index) => markers(index))),
      chunk,
    );
  }
}

function filtered(db: Executor, filter: AuditFilter) {
  let query = db.selectFrom('audit_events');
  if (filter.action) query = query.where('action', '=', filter.action);
  if (filter.actor_id) query = query.where('actor_id', '=', filter.actor_id);
  if (filter.target_id) query = query.where('target_id', '=', filter.target_id);
  if (filter.asset_id) query = query.where('asset_id', '=', filter.asset_id);
  if (filter.since) query = query.where('ts', '>=', new Date(filter.since).toISOString());
  if (filter.until) query = query.where('ts', '<', new Date(filter.until).toISOString());
  if (filter.visibleAssets !== null) {
    if (filter.visibleAssets.length === 0) return query.where(sql<boolean>`1 = 0`);
    query = query.where('asset_id', 'in', filter.visibleAssets);
  }
  return query;
}

export async function listAuditEvents(
  db: Executor,
  filter: AuditFilter,
  window: Window,
): Promise<{ rows: AuditRow[]; total: number }> {
  return listPage(filtered(db, filter).selectAll().orderBy('id', 'desc'), window);
}
