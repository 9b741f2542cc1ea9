/**
 * Digest windows in the database (decision 0044), so that a window is the cluster's, not one process's: items
 * raised on any process go into the target's one open window, and the window is sent by whichever process
 * takes it first when it ends (its own timer, or any process's sweep when the process that opened it is gone).
 *
 * Adding is one transaction: an upsert of the window (opened with its end, or its count raised) and, while the
 * count is within the digest's bound, the item. Taking is one transaction too: the window's DELETE (only one
 * process gets the row), the DELETE of its items, and the INSERT of a send leased to the taker. An item added
 * while a window is being taken belongs to either that window or the next one, never to none.
 *
 * At least once (decision 0047): the send row stays until its taker marks it sent, after delivery. One whose
 * lease expired unsent (its process died, or hung past the send's timeout) is taken again, by one process: a
 * conditional UPDATE of the lease. A process that dies after sending and before marking sends it twice.
 */
import { newId, notificationLimits } from '@svc/protocol';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { randomToken } from '../../platform/crypto.js';
import type { Database } from '../../platform/db/schema.js';

export interface TakenDigest {
  /** The target it is for (`notifications:<id>`, `push:<id>`). */
  target: string;
  /** The items as stored (JSON), oldest first. */
  items: string[];
  /** Items counted past the digest's bound. */
  more: number;
  /**
   * Delivered (or given up on for good): the send is deleted, even if its lease lapsed and another process took
   * it meanwhile (that one may send it again, but nobody after it).
   */
  sent(): Promise<void>;
  /** Not delivered (the hub closes): the lease ends now, so the next sweep anywhere takes it. */
  release(): Promise<void>;
}

export interface DigestStore {
  /** Puts an item (JSON) into the target's open window, opening one of `windowS`; returns when it ends. */
  add(target: string, windowS: number, item: string, now: Date): Promise<Date>;
  /**
   * Takes the target's window if it ended by `now`, leased for `leaseMs`: null when it has not, or another
   * process took it.
   */
  take(target: string, now: Date, leaseMs: number): Promise<TakenDigest | null>;
  /** Targets whose window ended by `now`. */
  due(now: Date, limit: number): Promise<string[]>;
  /** Takes again the sends of targets starting with `prefix` whose lease expired by `now`, leased anew. */
  retake(prefix: string, now: Date, leaseMs: number, limit: number): Promise<TakenDigest[]>;
  /** Forgets the target's window and items (the target was removed). */
  drop(target: string): Promise<void>;
}

/** The stored items of a send: JSON texts (each parsed later by its reader); anything else is dropped. */
function parseItems(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}

export function createDigestStore(db: Kysely<Database>): DigestStore {
  function leased(id: string, target: string, items: string[], more: number, claim: string): TakenDigest {
    return {
      target,
      items,
      more,
      async sent() {
        await db.deleteFrom('notification_digest_sends').where('id', '=', id).execute();
      },
      async release() {
        await db
          .updateTable('notification_digest_sends')
          .set({ lease_until: new Date(0).toISOString() })
          .where('id', '=', id)
          .where('claimed_by', '=', claim)
          .execute();
      },
    };
  }

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

    async take(target, now, leaseMs) {
      const claim = randomToken(16);
      const taken = await db.transaction().execute(async (trx) => {
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
        const more = Math.max(0, window.item_count - items.length);
        const id = newId('event');
        await trx
          .insertInto('notification_digest_sends')
          .values({
            id,
            target,
            items: JSON.stringify(items),
            more,
            claimed_by: claim,
            lease_until: new Date(now.getTime() + leaseMs).toISOString(),
            created_at: now.toISOString(),
          })
          .execute();
        return { id, items, more };
      });
      return taken && leased(taken.id, target, taken.items, taken.more, claim);
    },

    async retake(prefix, now, leaseMs, limit) {
      const at = now.toISOString();
      const expired = await db
        .selectFrom('notification_digest_sends')
        .select('id')
        .where('lease_until', '<=', at)
        .where('target', 'like', `${prefix}%`)
        .orderBy('lease_until')
        .limit(limit)
        .execute();
      const retaken: TakenDigest[] = [];
      for (const { id } of expired) {
        const claim = randomToken(16);
        // PostgreSQL checks the WHERE again on the row it locked: two processes cannot both take it again.
        const row = await db
          .updateTable('notification_digest_sends')
          .set({ claimed_by: claim, lease_until: new Date(now.getTime() + leaseMs).toISOString() })
          .where('id', '=', id)
          .where('lease_until', '<=', at)
          .returning(['target', 'items', 'more'])
          .executeTakeFirst();
        if (row) retaken.push(leased(id, row.target, parseItems(row.items), row.more, claim));
      }
      return retaken;
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
        await trx.deleteFrom('notification_digest_sends').where('target', '=', target).execute();
      });
    },
  };
}
