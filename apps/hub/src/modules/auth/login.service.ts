import type { LoginResult } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import type { PasswordHasher } from '../../platform/password-hasher.js';
import type { AuditService } from '../audit/audit.service.js';
import type { UserService } from '../users/users.service.js';
import type { SessionService } from '../users/session.service.js';
import { createSignInThrottle } from './sign-in-throttle.js';
import type { RateLimiterFactory } from '../../http/rate-limit.js';
import type { TwoFactorService } from './two-factor.service.js';

export interface LoginOutcome {
  result: LoginResult;
  /** Set when a session started: the cookie token. */
  token?: string;
}

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
  requestId: string;
}

export function createLoginService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  sessions: SessionService;
  twoFactor: TwoFactorService;
  passwords: PasswordHasher;
  users: Pick<UserService, 'account' | 'accountByUsername'>;
  /** The throttles' limiters: the cluster's shared ones when several processes serve (decision 0040). */
  rateLimiters?: RateLimiterFactory;
}) {
  const { db, audit, sessions, twoFactor, passwords } = deps;
  const throttle = createSignInThrottle(() => deps.clock.now().getTime(), deps.rateLimiters);

  async function recordSignIn(userId: string, meta: RequestMeta, outcome: string): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await audit.record(
        trx,
        {
          principal: {
            authType: 'session',
            userId,
            role: 'viewer',
            scopes: null,
            key: null,
            allowedAssets: null,
          },
          requestId: meta.requestId,
          ip: meta.ip,
        },
        { action: `auth.${outcome}`, targetType: 'user', targetId: userId },
      );
    });
  }

  async function startSession(
    userId: string,
    method: 'password' | 'password+2fa' | 'oidc',
    meta: RequestMeta,
  ): Promise<LoginOutcome> {
    const user = await deps.users.account(userId);
    if (!user) throw new HubError('unauthorized');
    // Only after every factor was right (password, second factor or the IdP): a disabled account is told so,
    // and whoever lacks its credentials learns nothing new (decision 0087).
    if (user.disabled_at !== null) {
      await recordSignIn(userId, meta, 'sign_in_refused_disabled');
      throw new HubError('account_disabled');
    }
    const { token, expiresAt } = await sessions.start({
      userId,
      authMethod: method,
      ip: meta.ip,
      userAgent: meta.userAgent,
    });
    await recordSignIn(userId, meta, 'signed_in');
    return {
      token,
      result: {
        requires_2fa: false,
        user: {
          id: user.id,
          username: user.username,
          role: user.role as 'viewer',
          totp_enabled: user.totp_secret !== null,
          auth_method: method,
          session_expires_at: expiresAt,
          must_change_password: user.must_change_password === 1,
        },
      },
    };
  }

  return {
    /**
     * The refusal a sign-in from `ip` gets whatever it names (the address has a check under way, or its
     * failures are used up), or null: answered before the body is read, the user looked up or bcrypt run.
     */
    refuseEarly: (ip: string | null): HubError | null => throttle.refusal(ip),

    async login(username: string, password: string, meta: RequestMeta): Promise<LoginOutcome> {
      const name = username.toLowerCase();
      const attempt = throttle.admit(name, meta.ip);
      let user: Awaited<ReturnType<UserService['accountByUsername']>>;
      let ok: boolean;
      try {
        user = await deps.users.accountByUsername(name);
        // An unknown user is checked against the decoy through the same queue: same cost, same refusals.
        ok = await passwords.verify(
          password,
          user?.password_hash.startsWith('$2') ? user.password_hash : await passwords.decoyHash(),
          { priority: attempt.fromKnownAddress },
        );
      } catch (error) {
        attempt.finish('not_checked');
        throw error;
      }
      attempt.finish(user && ok ? 'succeeded' : 'failed');
      if (!user || !ok) {
        if (user) await recordSignIn(user.id, meta, 'sign_in_failed');
        throw new HubError('unauthorized', 'Wrong username or password.');
      }
      if (user.totp_secret)
        return {
          result: {
            requires_2fa: true,
            challenge_token: await twoFactor.openChallenge(user.id, user.password_hash),
          },
        };
      return startSession(user.id, 'password', meta);
    },

    async completeTwoFactor(challengeToken: string, code: string, meta: RequestMeta): Promise<LoginOutcome> {
      const { userId } = await twoFactor.completeChallenge(challengeToken, code);
      return startSession(userId, 'password+2fa', meta);
    },

    startSession,
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
