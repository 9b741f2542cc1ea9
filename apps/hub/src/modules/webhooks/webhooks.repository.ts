import { sql, type Expression, type SqlBool } from 'kysely';
import type {
  Executor,
  WebhookDeliveriesTable,
  WebhookPendingTable,
  WebhooksTable,
} from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type WebhookRow = WebhooksTable;
export type WebhookDeliveryRow = WebhookDeliveriesTable;
export type PendingDeliveryRow = WebhookPendingTable;

export async function listWebhooks(
  db: Executor,
  window: Window,
): Promise<{ rows: WebhookRow[]; total: number }> {
  return listPage(db.selectFrom('webhooks').selectAll().orderBy('name').orderBy('id'), window);
}

export async function allWebhooks(db: Executor): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().orderBy('id').execute();
}

export async function findWebhook(db: Executor, id: string): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertWebhook(db: Executor, row: WebhookRow): Promise<void> {
  await db.insertInto('webhooks').values(row).execute();
}

export async function updateWebhook(db: Executor, id: string, changes: Partial<WebhookRow>): Promise<void> {
  await db.updateTable('webhooks').set(changes).where('id', '=', id).execute();
}

/** The webhook and the deliveries it still had pending. */
export async function deleteWebhook(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('webhook_pending').where('webhook_id', '=', id).execute();
  await db.deleteFrom('webhooks').where('id', '=', id).execute();
}

export async function insertPending(db: Executor, row: PendingDeliveryRow): Promise<void> {
  await db.insertInto('webhook_pending').values(row).execute();
}

export async function updatePending(
  db: Executor,
  id: string,
  changes: Pick<PendingDeliveryRow, 'attempts' | 'next_attempt_at'>,
): Promise<void> {
  await db.updateTable('webhook_pending').set(changes).where('id', '=', id).execute();
}

/**
 * Pending deliveries, oldest first, after the one given (at most `limit`). With `claimable`, only those no
 * live process holds: never claimed, claim expired, or held by a node not in `live` (decision 0040).
 */
export async function listPending(
  db: Executor,
  after: Pick<PendingDeliveryRow, 'created_at' | 'id'> | null,
  limit: number,
  claimable?: { nowIso: string; live: readonly string[] },
): Promise<PendingDeliveryRow[]> {
  let query = db.selectFrom('webhook_pending').selectAll();
  if (claimable)
    query = query.where((eb) =>
      eb.or([
        eb('claimed_by', 'is', null),
        eb('claim_expires_at', 'is', null),
        eb('claim_expires_at', '<', claimable.nowIso),
        ...(claimable.live.length > 0 ? [eb('claimed_by', 'not in', [...claimable.live])] : []),
      ]),
    );
  if (after)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '>', after.created_at),
        eb.and([eb('created_at', '=', after.created_at), eb('id', '>', after.id)]),
      ]),
    );
  return query.orderBy('created_at').orderBy('id').limit(limit).execute();
}

/** Moves on the claims this node holds (decision 0040): one statement for all of them. */
export async function renewClaims(
  db: Executor,
  nodeId: string,
  expiresAt: string,
  /** This process's lease (decision 0053): claims are renewed only while it holds. */
  fence: Expression<SqlBool>,
): Promise<number> {
  const result = await db
    .updateTable('webhook_pending')
    .set({ claim_expires_at: expiresAt })
    .where('claimed_by', '=', nodeId)
    .where(fence)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Gives this node's claims up (a clean stop): the next process to start or sweep takes them at once. */
export async function releaseClaims(db: Executor, nodeId: string): Promise<void> {
  await db
    .updateTable('webhook_pending')
    .set({ claimed_by: null, claim_expires_at: null })
    .where('claimed_by', '=', nodeId)
    .execute();
}

/**
 * Takes a pending delivery over if its claim is still the one seen (holder and expiry): a compare-and-set, so
 * of several processes taking the same row over, one gets it (PostgreSQL re-checks the WHERE on the row it
 * locked). True when this node holds it now.
 */
export async function takeOverPending(
  db: Executor,
  row: Pick<PendingDeliveryRow, 'id' | 'claimed_by' | 'claim_expires_at'>,
  nodeId: string,
  expiresAt: string,
  /** This process's lease (decision 0053): a process whose lease ran out takes nothing over. */
  fence: Expression<SqlBool>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_pending')
    .set({ claimed_by: nodeId, claim_expires_at: expiresAt })
    .where('id', '=', row.id)
    .where(fence)
    .where('claimed_by', row.claimed_by === null ? 'is' : '=', row.claimed_by)
    .where('claim_expires_at', row.claim_expires_at === null ? 'is' : '=', row.claim_expires_at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * One finished delivery: no longer pending, its record, and the webhook's counters moved (run in one
 * transaction by the caller).
 */
export async function recordDelivery(db: Executor, row: WebhookDeliveryRow): Promise<void> {
  await db.deleteFrom('webhook_pending').where('id', '=', row.id).execute();
  await db.insertInto('webhook_deliveries').values(row).execute();
  const counters =
    row.outcome === 'delivered'
      ? { delivered_count: sql<number>`delivered_count + 1`, last_delivered_at: row.finished_at }
      : {
          dropped_count: sql<number>`dropped_count + 1`,
          last_error: row.error,
          last_error_at: row.finished_at,
        };
  await db.updateTable('webhooks').set(counters).where('id', '=', row.webhook_id).execute();
}

export async function recordFailedAttempt(
  db: Executor,
  id: string,
  error: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('webhooks')
    .set({ failed_attempts: sql<number>`failed_attempts + 1`, last_error: error, last_error_at: at })
    .where('id', '=', id)
    .execute();
}

/** Retention: at most `limit` finished delivery records before `cutoff`, the oldest first (by the index). */
export async function deleteDeliveriesBefore(db: Executor, cutoff: string, limit: number): Promise<number> {
  const result = await db
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (sub) =>
      sub
        .selectFrom('webhook_deliveries')
        .select('id')
        .where('finished_at', '<', cutoff)
        .orderBy('finished_at')
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
