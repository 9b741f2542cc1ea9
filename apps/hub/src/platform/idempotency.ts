/**
 * Requests sent with an `Idempotency-Key` (contracts marked `idempotent`): the first one with a key runs and
 * its answer is kept; a repeat by the same credential within the window gets that answer and runs nothing.
 * The mobile app's offline queue replays with the key it took when the action was queued, so an action runs
 * at most once however often the replay is retried (docs/decisions/0032-mobile-offline-queue-and-push.md).
 *
 * A key is claimed by inserting its row before the request runs (the primary key makes the claim atomic): a
 * repeat while the first still runs answers 409, and a failed run frees the key so a later retry may run.
 */
import { idempotencyLimits } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Principal } from '../access/principal.js';
import type { Clock } from './clock.js';
import type { Database } from './db/schema.js';
import { HubError } from './hub-error.js';
import type { RetentionTask } from './retention.js';

export interface IdempotencyStore {
  /** Runs `run` once per credential and key; a repeat answers what the first run answered. */
  once(
    principal: Principal,
    key: string,
    request: { route: string; target: string },
    run: () => Promise<unknown>,
  ): Promise<unknown>;
  retention: RetentionTask;
}

/** Whose key it is: a replay is only ever answered to the credential that sent the first request. */
function credentialOf(principal: Principal): string {
  if (principal.key) return `key:${principal.key.id}`;
  return `user:${principal.userId ?? 'anonymous'}`;
}

export function isIdempotencyKey(value: string): boolean {
  return new RegExp(idempotencyLimits.pattern).test(value);
}

export function createIdempotencyStore(db: Kysely<Database>, clock: Clock): IdempotencyStore {
  const ttlMs = idempotencyLimits.ttlHours * 3_600_000;

  async function claim(credential: string, key: string, route: string, target: string): Promise<boolean> {
    const now = clock.now();
    const cutoff = new Date(now.getTime() - ttlMs).toISOString();
    // An expired record of this key no longer counts: the key may be used afresh.
    await db
      .deleteFrom('idempotency_records')
      .where('credential', '=', credential)
      .where('key', '=', key)
      .where('created_at', '<', cutoff)
      .execute();
    const inserted = await db
      .insertInto('idempotency_records')
      .values({ credential, key, route, target, response: null, created_at: now.toISOString() })
      .onConflict((oc) => oc.columns(['credential', 'key']).doNothing())
      .executeTakeFirst();
    return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
  }

  return {
    async once(principal, key, request, run) {
      const credential = credentialOf(principal);
      if (await claim(credential, key, request.route, request.target)) {
        let result: unknown;
        try {
          result = await run();
        } catch (error) {
          await db
            .deleteFrom('idempotency_records')
            .where('credential', '=', credential)
            .where('key', '=', key)
            .execute();
          throw error;
        }
        await db
          .updateTable('idempotency_records')
          .set({ response: JSON.stringify(result ?? null) })
          .where('credential', '=', credential)
          .where('key', '=', key)
          .execute();
        return result;
      }
      const row = await db
        .selectFrom('idempotency_records')
        .selectAll()
        .where('credential', '=', credential)
        .where('key', '=', key)
        .executeTakeFirst();
      if (!row) throw new HubError('conflict', 'This Idempotency-Key was just released; send it again.');
      if (row.route !== request.route || row.target !== request.target) {
        throw new HubError(
          'conflict',
          `This Idempotency-Key was used for another request (${row.route} ${row.target}); use a new key.`,
        );
      }
      if (row.response === null) {
        throw new HubError('conflict', 'A request with this Idempotency-Key is still running.');
      }
      return JSON.parse(row.response) as unknown;
    },
    retention: {
      name: 'idempotency_records',
      // The window is a day; the table is purged of anything older at each retention run.
      days: () => Math.ceil(idempotencyLimits.ttlHours / 24),
      async purgeBatch(cutoff, limit) {
        const rows = await db
          .selectFrom('idempotency_records')
          .select(['credential', 'key'])
          .where('created_at', '<', cutoff)
          .limit(limit)
          .execute();
        for (const row of rows) {
          await db
            .deleteFrom('idempotency_records')
            .where('credential', '=', row.credential)
            .where('key', '=', row.key)
            .execute();
        }
        return rows.length;
      },
    },
  };
}
