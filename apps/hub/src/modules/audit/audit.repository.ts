import { sql } from 'kysely';
import type { AuditQuery } from '@svc/protocol';
import type { AuditEventsTable, Executor } from '../../platform/db/schema.js';
import type { Window } from '../../platform/db/paging.js';

export type AuditRow = AuditEventsTable;

export interface AuditFilter extends AuditQuery {
  /** Only events about these assets; null means no restriction. */
  visibleAssets: readonly string[] | null;
}

export async function insertAuditEvents(db: Executor, rows: readonly AuditRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('audit_events')
    .values([...rows])
    .execute();
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
  const { limit, offset } = window;
  const rows = await filtered(db, filter)
    .selectAll()
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  const count = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return { rows, total: Number(count.n) };
}
