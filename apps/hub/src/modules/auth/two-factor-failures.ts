/**
 * The per-user limit on wrong second-factor codes, in the database (decision 0047), so that it is the
 * cluster's: N processes allow 10, not N × 10.
 *
 * A user has as many slots as the limit allows (`two_factor_failures`, keyed by user and slot). A code check
 * first reserves a slot, which counts as a failure while the check runs: parallel guesses, on any process,
 * cannot all pass the limit before the first of them is judged. A slot is taken with one conditional upsert
 * (insert, or take over a row whose failure expired), atomic on SQLite and PostgreSQL alike: two checks never
 * hold one slot, so no more checks run than there are slots. A wrong code leaves its slot taken until the
 * window passes; a right one (or a check that could not run) frees it. A process that dies mid-check leaves
 * its slot as a failure: the safe side.
 */
import type { Kysely } from 'kysely';
import { randomToken } from '../../platform/crypto.js';
import type { Database } from '../../platform/db/schema.js';
import type { RetentionTask } from '../../platform/retention.js';

export interface FailureLimit {
  /** Wrong codes per user within the window: the number of slots. */
  failures: number;
  windowMs: number;
}

interface ReservedCheck {
  /** The check passed or did not run: its slot is freed. A check never released stays a failure. */
  release(): Promise<void>;
}

export interface TwoFactorFailures {
  /** Reserves a slot for one code check; null when the user's slots are all taken (the limit is reached). */
  reserve(userId: string, now: Date): Promise<ReservedCheck | null>;
  /** Counts a wrong code outside a reserved check (confirming a setup); nothing more once at the limit. */
  note(userId: string, now: Date): Promise<void>;
  /** Expired failures, purged by the retention runner. */
  retention: RetentionTask;
}

export function createTwoFactorFailures(db: Kysely<Database>, limit: FailureLimit): TwoFactorFailures {
  /** Takes one free slot of the user's: its number and claim, or null when none was free. */
  async function takeSlot(userId: string, now: Date): Promise<{ slot: number; claim: string } | null> {
    const at = now.toISOString();
    const taken = await db
      .selectFrom('two_factor_failures')
      .select('slot')
      .where('user_id', '=', userId)
      .where('expires_at', '>', at)
      .execute();
    const busy = new Set(taken.map((r) => r.slot));
    const claim = randomToken(16);
    const expiresAt = new Date(now.getTime() + limit.windowMs).toISOString();
    // Slots free when read; one taken meanwhile by another check fails its upsert, and the next is tried.
    for (let slot = 0; slot < limit.failures; slot++) {
      if (busy.has(slot)) continue;
      const row = await db
        .insertInto('two_factor_failures')
        .values({ user_id: userId, slot, expires_at: expiresAt, claim })
        .onConflict((oc) =>
          oc
            .columns(['user_id', 'slot'])
            .doUpdateSet({ expires_at: expiresAt, claim })
            // PostgreSQL checks this again on the row it locked: two takers of one expired slot cannot both win.
            .where('two_factor_failures.expires_at', '<=', at),
        )
        .returning('slot')
        .executeTakeFirst();
      if (row) return { slot, claim };
    }
    return null;
  }

  return {
    async reserve(userId, now) {
      const taken = await takeSlot(userId, now);
      if (!taken) return null;
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await db
            .deleteFrom('two_factor_failures')
            .where('user_id', '=', userId)
            .where('slot', '=', taken.slot)
            .where('claim', '=', taken.claim)
            .execute();
        },
      };
    },

    async note(userId, now) {
      await takeSlot(userId, now);
    },

    retention: {
      name: 'two_factor_failures',
      // Failures count for minutes: anything expired is purged at each run.
      days: () => 0,
      async purgeBatch(cutoff, batch) {
        const rows = await db
          .selectFrom('two_factor_failures')
          .select(['user_id', 'slot'])
          .where('expires_at', '<=', cutoff)
          .orderBy('expires_at')
          .limit(batch)
          .execute();
        let deleted = 0;
        for (const row of rows) {
          const result = await db
            .deleteFrom('two_factor_failures')
            .where('user_id', '=', row.user_id)
            .where('slot', '=', row.slot)
            .where('expires_at', '<=', cutoff)
            .executeTakeFirst();
          deleted += Number(result.numDeletedRows);
        }
        return deleted;
      },
    },
  };
}
