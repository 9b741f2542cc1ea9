/**
 * Two-factor sign-in (spec 5.2): TOTP setup confirmed by a code, login challenges, recovery codes, disable.
 *
 * One-time secrets stay single-use under concurrency, across processes too: a challenge (in the database,
 * sign-in-challenges.ts) is claimed by a conditional UPDATE before its code is checked and consumed by a DELETE
 * under that claim, a TOTP step is consumed by a conditional UPDATE, and a recovery code by an UPDATE … WHERE
 * used_at IS NULL. The per-user limit on wrong codes is the cluster's too (two-factor-failures.ts).
 */
import type { RecoveryCodes, TotpSetup } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { EventBus } from '../../platform/event-bus.js';
import { randomToken } from '../../platform/crypto.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import type { PasswordHasher } from '../../platform/password-hasher.js';
import type { RetentionTask } from '../../platform/retention.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { ActionContext } from '../../access/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import type { UserService } from '../users/users.service.js';
import { createSignInChallenges, passwordCheckOf } from './sign-in-challenges.js';
import { createTwoFactorFailures } from './two-factor-failures.js';
import { matchTotp, newTotpSecret, totpUri } from './totp.js';
import {
  deleteRecoveryCodes,
  findUnusedRecoveryCodes,
  replaceRecoveryCodes,
  useRecoveryCode,
} from './two-factor.repository.js';

const twoFactorLimits = {
  challengeLifetimeMs: 5 * 60 * 1000,
  challengeAttempts: 5,
  /** How long one code check may hold a challenge (a bcrypt check of recovery codes may queue). */
  challengeClaimMs: 30_000,
  /** Failed codes per user across all challenges before sign-in by 2FA pauses. */
  userFailures: 10,
  userFailureWindowMs: 15 * 60 * 1000,
  recoveryCodes: 8,
  pendingSetupMs: 15 * 60 * 1000,
} as const;

export interface TwoFactorService {
  isEnabled(userId: string): Promise<boolean>;
  setup(ctx: ActionContext): Promise<TotpSetup>;
  verifySetup(ctx: ActionContext, code: string): Promise<RecoveryCodes>;
  disable(ctx: ActionContext, code: string): Promise<void>;
  regenerateRecoveryCodes(ctx: ActionContext, code: string): Promise<RecoveryCodes>;
  /** Opens a challenge after a correct password; returns its token. */
  openChallenge(userId: string, passwordHash: string): Promise<string>;
  /** Checks a code against a challenge; returns the user id once, then the challenge is gone. */
  completeChallenge(token: string, code: string): Promise<{ userId: string; method: 'totp' | 'recovery' }>;
  /** Expired challenges and failures, purged by the retention runner. */
  retention: RetentionTask[];
}

const pendingContext = (userId: string) => `totp-pending:${userId}`;
const secretContext = (userId: string) => `totp:${userId}`;

function recoveryCodeText(): string {
  const raw = randomToken(7).slice(0, 10);
  return `${raw.slice(0, 5)}-${raw.slice(5)}`;
}

function normalizeRecoveryCode(code: string): string | null {
  const compact = code.trim().toLowerCase().replace(/[\s-]/g, '');
  return /^[a-z2-7]{10}$/.test(compact) ? `${compact.slice(0, 5)}-${compact.slice(5)}` : null;
}

export function createTwoFactorService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  box: SecretBox;
  passwords: PasswordHasher;
  /** Accounts and their TOTP columns: the users module owns the table. */
  users: Pick<UserService, 'account' | 'setPendingTotp' | 'consumeTotpStep' | 'enableTotp' | 'disableTotp'>;
}): TwoFactorService {
  const { db, clock, audit, events, box, passwords } = deps;
  const challenges = createSignInChallenges(db, {
    lifetimeMs: twoFactorLimits.challengeLifetimeMs,
    attempts: twoFactorLimits.challengeAttempts,
    claimMs: twoFactorLimits.challengeClaimMs,
  });
  const failures = createTwoFactorFailures(db, {
    failures: twoFactorLimits.userFailures,
    windowMs: twoFactorLimits.userFailureWindowMs,
  });

  /**
   * Reserves one code check against the per-user failure limit, shared by every process (decision 0047): a
   * check under way counts as a failure until released, so parallel guesses on many challenges cannot all
   * pass the limit before the first of them is recorded. Not releasing it keeps it as the failure.
   */
  async function reserveAttempt(userId: string): Promise<() => Promise<void>> {
    const reserved = await failures.reserve(userId, clock.now());
    if (!reserved) {
      throw new HubError('rate_limited', 'Too many wrong codes; wait a few minutes.', {
        headers: { 'Retry-After': '900' },
      });
    }
    return () => reserved.release();
  }

  async function loadUser(userId: string) {
    const user = await deps.users.account(userId);
    if (!user) throw new HubError('unauthorized');
    return user;
  }

  /** Consumes a TOTP code for an active secret: true once per time step, false otherwise. */
  async function consumeTotp(userId: string, sealedSecret: string, code: string): Promise<boolean> {
    const step = matchTotp(box.open(sealedSecret, secretContext(userId)), code, clock.now());
    if (step === null) return false;
    return deps.users.consumeTotpStep(userId, step);
  }

  /**
   * Consumes an unused recovery code: true once, false for any other code or a second use. Its bcrypt checks
   * go through the bounded queue and may be refused with 429; a TOTP code (six digits) never gets here, as
   * no recovery code looks like one, so a full queue cannot let a TOTP guess go uncounted.
   */
  async function consumeRecoveryCode(userId: string, code: string): Promise<boolean> {
    const normalized = normalizeRecoveryCode(code);
    if (!normalized) return false;
    const rows = await findUnusedRecoveryCodes(db, userId);
    const row =
      rows[
        await passwords.verifyAny(
          normalized,
          rows.map((r) => r.code_hash),
        )
      ];
    if (!row) return false;
    return useRecoveryCode(db, row.id, clock.now().toISOString());
  }

  /** New codes and their hashes, made before the transaction that stores them (it need not wait on bcrypt). */
  async function freshRecoveryCodes(): Promise<{ codes: string[]; hashes: string[] }> {
    const codes = Array.from({ length: twoFactorLimits.recoveryCodes }, recoveryCodeText);
    return { codes, hashes: await passwords.hashAll(codes) };
  }

  async function storeRecoveryCodes(trx: Executor, userId: string, hashes: readonly string[]): Promise<void> {
    await replaceRecoveryCodes(trx, userId, hashes, clock.now().toISOString());
  }

  /** A code for an action on one's own 2FA: TOTP, or (when allowed) an unused recovery code. */
  async function checkOwnCode(userId: string, code: string, allowRecovery: boolean): Promise<void> {
    const release = await reserveAttempt(userId);
    let failed = false;
    try {
      const user = await loadUser(userId);
      if (!user.totp_secret) throw new HubError('conflict', 'Two-factor sign-in is not on.');
      const ok =
        (await consumeTotp(userId, user.totp_secret, code)) ||
        (allowRecovery && (await consumeRecoveryCode(userId, code)));
      if (!ok) {
        failed = true;
        throw new HubError('validation', 'The code is not valid (or was already used).', {
          details: [{ field: 'body.code', problem: 'is not valid' }],
        });
      }
    } finally {
      if (!failed) await release();
    }
  }

  function requireUser(ctx: ActionContext): string {
    if (!ctx.principal.userId || ctx.principal.authType !== 'session')
      throw new HubError('forbidden', 'Sign in to the console first.');
    return ctx.principal.userId;
  }

  return {
    async isEnabled(userId) {
      return (await loadUser(userId)).totp_secret !== null;
    },

    async setup(ctx) {
      const userId = requireUser(ctx);
      const user = await loadUser(userId);
      if (user.totp_secret)
        throw new HubError('conflict', 'Two-factor sign-in is already on; disable it first.');
      const secret = newTotpSecret();
      const pending = JSON.stringify({ secret, created_at: clock.now().toISOString() });
      await deps.users.setPendingTotp(userId, box.seal(pending, pendingContext(userId)));
      return { secret, otpauth_uri: totpUri(secret, user.username) };
    },

    async verifySetup(ctx, code) {
      const userId = requireUser(ctx);
      const user = await loadUser(userId);
      if (user.totp_secret) throw new HubError('conflict', 'Two-factor sign-in is already on.');
      if (!user.totp_pending_secret)
        throw new HubError('conflict', 'Start the setup first (POST /api/auth/2fa/setup).');
      const pending = JSON.parse(box.open(user.totp_pending_secret, pendingContext(userId))) as {
        secret: string;
        created_at: string;
      };
      if (clock.now().getTime() - new Date(pending.created_at).getTime() > twoFactorLimits.pendingSetupMs) {
        await deps.users.setPendingTotp(userId, null);
        throw new HubError('conflict', 'The setup expired; start it again.');
      }
      const step = matchTotp(pending.secret, code, clock.now());
      if (step === null) {
        await failures.note(userId, clock.now());
        throw new HubError('validation', 'The code does not match the new secret.', {
          details: [{ field: 'body.code', problem: 'is not valid' }],
        });
      }
      const fresh = await freshRecoveryCodes();
      await db.transaction().execute(async (trx) => {
        const enabled = await deps.users.enableTotp(
          trx,
          userId,
          box.seal(pending.secret, secretContext(userId)),
          step,
        );
        if (!enabled) throw new HubError('conflict', 'Two-factor sign-in is already on.');
        await storeRecoveryCodes(trx, userId, fresh.hashes);
        await audit.record(trx, ctx, { action: 'user.2fa_enabled', targetType: 'user', targetId: userId });
      });
      events.publish('user.updated', { asset_ids: [], user_id: userId, change: 'two_factor_enabled' });
      return { recovery_codes: fresh.codes };
    },

    async disable(ctx, code) {
      const userId = requireUser(ctx);
      await checkOwnCode(userId, code, true);
      await db.transaction().execute(async (trx) => {
        await deps.users.disableTotp(trx, userId);
        await deleteRecoveryCodes(trx, userId);
        await audit.record(trx, ctx, { action: 'user.2fa_disabled', targetType: 'user', targetId: userId });
      });
      events.publish('user.updated', { asset_ids: [], user_id: userId, change: 'two_factor_disabled' });
    },

    async regenerateRecoveryCodes(ctx, code) {
      const userId = requireUser(ctx);
      await checkOwnCode(userId, code, false);
      const fresh = await freshRecoveryCodes();
      await db.transaction().execute(async (trx) => {
        await storeRecoveryCodes(trx, userId, fresh.hashes);
        await audit.record(trx, ctx, {
          action: 'user.recovery_codes_replaced',
          targetType: 'user',
          targetId: userId,
        });
      });
      events.publish('user.updated', { asset_ids: [], user_id: userId, change: 'recovery_codes_replaced' });
      return { recovery_codes: fresh.codes };
    },

    retention: [challenges.retention, failures.retention],

    openChallenge(userId, passwordHash) {
      return challenges.open(userId, passwordCheckOf(passwordHash), clock.now());
    },

    async completeChallenge(token, code) {
      const expired = 'The sign-in challenge is unknown, expired or used up; sign in again.';
      const outcome = await challenges.claim(token, clock.now());
      if (outcome.kind === 'unknown') throw new HubError('unauthorized', expired);
      if (outcome.kind === 'busy')
        throw new HubError('conflict', 'Another attempt on this challenge is in progress.');
      const challenge = outcome.challenge;
      let settled = false;
      let release: (() => Promise<void>) | null = null;
      let failed = false;
      try {
        release = await reserveAttempt(challenge.userId);
        const user = await loadUser(challenge.userId);
        if (!user.totp_secret || passwordCheckOf(user.password_hash) !== challenge.passwordCheck) {
          settled = true;
          await challenge.discard();
          throw new HubError('unauthorized', expired);
        }
        let method: 'totp' | 'recovery' | null = null;
        if (await consumeTotp(user.id, user.totp_secret, code)) method = 'totp';
        else if (await consumeRecoveryCode(user.id, code)) method = 'recovery';
        if (method === null) {
          settled = true;
          // The reserved slot stays taken: it is this failure.
          failed = true;
          await challenge.fail();
          throw new HubError('unauthorized', 'The code is not valid (or was already used).');
        }
        settled = true;
        if (!(await challenge.consume())) throw new HubError('unauthorized', expired);
        return { userId: challenge.userId, method };
      } finally {
        if (!failed) await release?.();
        if (!settled) await challenge.release();
      }
    },
  };
}
