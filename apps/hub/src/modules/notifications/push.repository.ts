import { sql } from 'kysely';
import type { Executor, PushSubscriptionsTable } from '../../platform/db/schema.js';

export type PushSubscriptionRow = PushSubscriptionsTable;

export async function allPushSubscriptions(db: Executor): Promise<PushSubscriptionRow[]> {
  return db.selectFrom('push_subscriptions').selectAll().orderBy('id').execute();
}

export async function pushSubscriptionsOf(db: Executor, userId: string): Promise<PushSubscriptionRow[]> {
  return db
    .selectFrom('push_subscriptions')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

export async function findPushSubscription(
  db: Executor,
  id: string,
): Promise<PushSubscriptionRow | undefined> {
  return db.selectFrom('push_subscriptions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The device's earlier subscription and any row with the same endpoint go: one subscription per device. */
export async function replacePushSubscription(db: Executor, row: PushSubscriptionRow): Promise<void> {
  await db
    .deleteFrom('push_subscriptions')
    .where((eb) =>
      eb.or([
        eb.and([eb('user_id', '=', row.user_id), eb('device_id', '=', row.device_id)]),
        eb('endpoint', '=', row.endpoint),
      ]),
    )
    .execute();
  await db.insertInto('push_subscriptions').values(row).execute();
}

export async function deletePushSubscription(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('push_subscriptions').where('id', '=', id).execute();
}

/** A user's subscriptions go; answers how many. */
export async function deletePushSubscriptionsOf(db: Executor, userId: string): Promise<number> {
  const result = await db.deleteFrom('push_subscriptions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function countPushSent(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('push_subscriptions')
    .set({ sent_count: sql<number>`sent_count + 1`, last_error: null })
    .where('id', '=', id)
    .execute();
}

export async function countPushFailed(db: Executor, id: string, error: string): Promise<void> {
  await db
    .updateTable('push_subscriptions')
    .set({ failed_count: sql<number>`failed_count + 1`, last_error: error })
    .where('id', '=', id)
    .execute();
}
