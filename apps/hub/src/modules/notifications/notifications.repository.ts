import { sql } from 'kysely';
import type { Executor, NotificationChannelsTable } from '../../platform/db/schema.js';

export type ChannelRow = NotificationChannelsTable;

export async function allChannels(db: Executor): Promise<ChannelRow[]> {
  return db.selectFrom('notification_channels').selectAll().orderBy('name').orderBy('id').execute();
}

export async function findChannel(db: Executor, id: string): Promise<ChannelRow | undefined> {
  return db.selectFrom('notification_channels').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertChannel(db: Executor, row: ChannelRow): Promise<void> {
  await db.insertInto('notification_channels').values(row).execute();
}

export async function updateChannel(db: Executor, id: string, changes: Partial<ChannelRow>): Promise<void> {
  await db.updateTable('notification_channels').set(changes).where('id', '=', id).execute();
}

export async function deleteChannel(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('notification_channels').where('id', '=', id).execute();
}

export async function countSent(db: Executor, id: string, at: string): Promise<void> {
  await db
    .updateTable('notification_channels')
    .set({ sent_count: sql<number>`sent_count + 1`, last_sent_at: at })
    .where('id', '=', id)
    .execute();
}

export async function countFailed(db: Executor, id: string, error: string): Promise<void> {
  await db
    .updateTable('notification_channels')
    .set({ failed_count: sql<number>`failed_count + 1`, last_error: error })
    .where('id', '=', id)
    .execute();
}

export async function countSuppressed(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('notification_channels')
    .set({ suppressed_count: sql<number>`suppressed_count + 1` })
    .where('id', '=', id)
    .execute();
}
