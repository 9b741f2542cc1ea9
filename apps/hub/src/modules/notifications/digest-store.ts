/**
 * Digest windows in the database (decision 0044), so that a window is the cluster's, not one process's: items
 * raised on any process go into the target's one open window, and the window is sent once, by whichever
 * process takes it first when it ends (its own timer, or any process's sweep when the process that opened it
 * is gone).
 *
 * Adding is one transaction: an upsert of the window (opened with its end, or its count raised) and, while the
 * count is within the digest's bound, the item. Taking is one transaction too: the window's DELETE (only one
 * process gets the row) and the DELETE of its items. An item added while a window is being taken belongs to
 * either that window or the next one, never to none.
 */
import { newId, notificationLimits } from '@svc/protocol';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Database } from '../../platform/db/schema.js';

interface TakenDigest {
  /** The items as stored (JSON), oldest first. */
  items: string[];
  /** Items counted past the digest's bound. */
  more: number;
}

export interface DigestStore {
  /** Puts an item (JSON) into the target's open window, opening one of `windowS`; returns when it ends. */
  add(target: string, windowS: number, item: string, now: Date): Promise<Date>;
  /** Takes the target's window if it ended by `now`: null when it has not, or another process took it. */
  take(target: string, now: Date): Promise<TakenDigest | null>;
  /** Targets whose window ended by `now`. */
  due(now: Date, limit: number): Promise<string[]>;
  /** Forgets the target's window and items (the target was removed). */
  drop(target: string): Promise<void>;
}

export function createDigestStore(db: Kysely<Database>): DigestStore {
  return {
    async add(target, windowS, item, now) {
      return db.transaction().execute(async (trx) => {
        const window = await trx
          .insertInto('notification_digests')
          .values({
            target,
            ends_at: new Date(now.getTime() + windowS * 1000).toISOString(),
            item_count: 1,
          })
          .onConflict((oc) =>
            oc.column('target').doUpdateSet({ item_count: sql<number>`notification_digests.item_count + 1` }),
          )
          .returning(['ends_at', 'item_count'])
          .executeTakeFirstOrThrow();
        if (window.item_count <= notificationLimits.digestItems)
          await trx
            .insertInto('notification_digest_items')
            .values({ id: newId('event'), target, item, created_at: now.toISOString() })
            .execute();
        return new Date(window.ends_at);
      });
    },

    async take(target, now) {
      return db.transaction().execute(async (trx) => {
        const window = await trx
          .deleteFrom('notification_digests')
          .where('target', '=', target)
          .where('ends_at', '<=', now.toISOString())
          .returning('item_count')
          .executeTakeFirst();
        if (!window) return null;
        const rows = await trx
          .deleteFrom('notification_digest_items')
          .where('target', '=', target)
          .returning(['item', 'created_at', 'id'])
          .execute();
        rows.sort((x, y) => x.created_at.localeCompare(y.created_at) || x.id.localeCompare(y.id));
        const items = rows.slice(0, notificationLimits.digestItems).map((r) => r.item);
        return { items, more: Math.max(0, window.item_count - items.length) };
      });
    },

    async due(now, limit) {
      const rows = await db
        .selectFrom('notification_digests')
        .select('target')
        .where('ends_at', '<=', now.toISOString())
        .orderBy('ends_at')
        .limit(limit)
        .execute();
      return rows.map((r) => r.target);
    },

    async drop(target) {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('notification_digests').where('target', '=', target).execute();
        await trx.deleteFrom('notification_digest_items').where('target', '=', target).execute();
      });
    },
  };
}
