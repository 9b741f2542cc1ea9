/**
 * The second sign-in step's challenges, in the database (decision 0044): behind a load balancer that is not
 * sticky, the code may reach another process than the password did. Only a hash of the token is stored.
 *
 * One code check at a time per challenge, across processes: an attempt claims the row with a conditional
 * UPDATE (no claim, or an expired one; not used up; not expired), and only the claim's holder may count a
 * failure or consume the challenge. Consuming is a DELETE under that claim: two processes cannot both accept.
 */
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { randomToken, sha256Hex } from '../../platform/crypto.js';
import type { Database } from '../../platform/db/schema.js';
import type { RetentionTask } from '../../platform/retention.js';

export interface ChallengeLimits {
  lifetimeMs: number;
  /** Wrong codes before the challenge is used up. */
  attempts: number;
  /** How long one code check may hold its claim (a crashed process's claim lapses after it). */
  claimMs: number;
}

interface ClaimedChallenge {
  userId: string;
  passwordCheck: string;
  /** Counts a wrong code; returns whether the challenge is now used up (and gone). */
  fail(): Promise<boolean>;
  /** Takes the challenge for good; false when the claim was lost meanwhile (another process took over). */
  consume(): Promise<boolean>;
  /** Gives the claim back without a verdict (the check could not run). */
  release(): Promise<void>;
  /** Deletes the challenge (void: the password changed or 2FA went off). */
  discard(): Promise<void>;
}

type ClaimOutcome = { kind: 'claimed'; challenge: ClaimedChallenge } | { kind: 'busy' } | { kind: 'unknown' };

export interface SignInChallenges {
  /** Stores a new challenge; returns its token (shown once, never stored). */
  open(userId: string, passwordCheck: string, now: Date): Promise<string>;
  claim(token: string, now: Date): Promise<ClaimOutcome>;
  /** Expired challenges, purged by the retention runner. */
  retention: RetentionTask;
}

/** What a challenge remembers of the password: a hash of its hash, enough to see that it changed. */
export const passwordCheckOf = (passwordHash: string): string =>
  sha256Hex(`sign-in-challenge:${passwordHash}`);

export function createSignInChallenges(db: Kysely<Database>, limits: ChallengeLimits): SignInChallenges {
  return {
    async open(userId, passwordCheck, now) {
      const token = randomToken(32);
      await db
        .insertInto('sign_in_challenges')
        .values({
          token_hash: sha256Hex(token),
          user_id: userId,
          password_check: passwordCheck,
          expires_at: new Date(now.getTime() + limits.lifetimeMs).toISOString(),
          failures: 0,
          claim: null,
          claim_expires_at: null,
        })
        .execute();
      return token;
    },

    async claim(token, now) {
      const tokenHash = sha256Hex(token);
      const at = now.toISOString();
      const claim = randomToken(16);
      const claimed = await db
        .updateTable('sign_in_challenges')
        .set({ claim, claim_expires_at: new Date(now.getTime() + limits.claimMs).toISOString() })
        .where('token_hash', '=', tokenHash)
        .where('expires_at', '>', at)
        .where('failures', '<', limits.attempts)
        .where((eb) => eb.or([eb('claim', 'is', null), eb('claim_expires_at', '<=', at)]))
        .returning(['user_id', 'password_check'])
        .executeTakeFirst();
      if (!claimed) {
        const row = await db
          .selectFrom('sign_in_challenges')
          .select(['expires_at', 'failures'])
          .where('token_hash', '=', tokenHash)
          .executeTakeFirst();
        const live = row !== undefined && row.expires_at > at && row.failures < limits.attempts;
        return live ? { kind: 'busy' } : { kind: 'unknown' };
      }
      return {
        kind: 'claimed',
        challenge: {
          userId: claimed.user_id,
          passwordCheck: claimed.password_check,
          async fail() {
            // Counted even when the claim lapsed meanwhile (a slow check): a wrong code always costs one.
            const counted = await db
              .updateTable('sign_in_challenges')
              .set({
                failures: sql<number>`failures + 1`,
                claim: sql<string | null>`case when claim = ${claim} then null else claim end`,
              })
              .where('token_hash', '=', tokenHash)
              .returning('failures')
              .executeTakeFirst();
            const usedUp = counted === undefined || counted.failures >= limits.attempts;
            if (usedUp)
              await db
                .deleteFrom('sign_in_challenges')
                .where('token_hash', '=', tokenHash)
                .where('failures', '>=', limits.attempts)
                .execute();
            return usedUp;
          },
          async consume() {
            const deleted = await db
              .deleteFrom('sign_in_challenges')
              .where('token_hash', '=', tokenHash)
              .where('claim', '=', claim)
              .executeTakeFirst();
            return Number(deleted.numDeletedRows) === 1;
          },
          async release() {
            await db
              .updateTable('sign_in_challenges')
              .set({ claim: null, claim_expires_at: null })
              .where('token_hash', '=', tokenHash)
              .where('claim', '=', claim)
              .execute();
          },
          async discard() {
            await db.deleteFrom('sign_in_challenges').where('token_hash', '=', tokenHash).execute();
          },
        },
      };
    },

    retention: {
      name: 'sign_in_challenges',
      // Challenges live minutes: anything expired is purged at each run.
      days: () => 0,
      async purgeBatch(cutoff, limit) {
        const result = await db
          .deleteFrom('sign_in_challenges')
          .where('token_hash', 'in', (sub) =>
            sub
              .selectFrom('sign_in_challenges')
              .select('token_hash')
              .where('expires_at', '<=', cutoff)
              .orderBy('expires_at')
              .limit(limit),
          )
          .executeTakeFirst();
        return Number(result.numDeletedRows);
      },
    },
  };
}
