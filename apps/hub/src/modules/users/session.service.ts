import { newId, type Role } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { constantTimeEqual, randomToken, sha256Hex } from '../../platform/crypto.js';
import type { Database } from '../../platform/db/schema.js';
import type { Principal } from '../../access/principal.js';
import { sessionLifetimeMs } from '../../http/session-cookie.js';
import {
  deleteExpiredSessions,
  deleteSessionByHash,
  deleteSessionsForUser,
  findSessionByHash,
  insertSession,
  sessionExists,
  touchSession,
} from './sessions.repository.js';

const touchResolutionMs = 60_000;

interface SessionInfo {
  principal: Principal;
  sessionId: string;
  username: string;
  authMethod: string;
  expiresAt: string;
  totpEnabled: boolean;
}

export interface SessionService {
  /** Starts a session; returns the cookie token (shown to the browser only). */
  start(input: {
    userId: string;
    authMethod: 'password' | 'password+2fa' | 'oidc';
    ip: string | null;
    userAgent: string | null;
  }): Promise<{ token: string; expiresAt: string }>;
  resolve(token: string): Promise<SessionInfo | null>;
  end(token: string): Promise<void>;
  endAllForUser(userId: string): Promise<void>;
  /** Whether the session exists and has not expired (an open event stream asks after its user changed). */
  isActive(sessionId: string): Promise<boolean>;
}

export function createSessionService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  /** Told after a sign-out, so what the session opened (an event stream) closes at once. */
  onEnded?: (sessionId: string) => void;
}): SessionService {
  const { db, clock } = deps;
  return {
    async start({ userId, authMethod, ip, userAgent }) {
      const token = randomToken(32);
      const now = clock.now();
      const expiresAt = new Date(now.getTime() + sessionLifetimeMs).toISOString();
      await deleteExpiredSessions(db, now.toISOString());
      await insertSession(db, {
        id: newId('session'),
        token_hash: sha256Hex(token),
        user_id: userId,
        auth_method: authMethod,
        created_at: now.toISOString(),
        expires_at: expiresAt,
        last_seen_at: now.toISOString(),
        ip,
        user_agent: userAgent?.slice(0, 256) ?? null,
      });
      return { token, expiresAt };
    },

    async resolve(token) {
      if (!/^[a-z2-7]{52}$/.test(token)) return null;
      const hash = sha256Hex(token);
      const row = await findSessionByHash(db, hash);
      if (!row || !constantTimeEqual(row.token_hash, hash)) return null;
      const now = clock.now();
      if (new Date(row.expires_at).getTime() <= now.getTime()) {
        await deleteSessionByHash(db, hash);
        return null;
      }
      if (now.getTime() - new Date(row.last_seen_at).getTime() >= touchResolutionMs) {
        await touchSession(db, row.session_id, now.toISOString());
      }
      return {
        principal: {
          authType: 'session',
          userId: row.user_id,
          role: row.role as Role,
          scopes: null,
          key: null,
          allowedAssets: null,
          sessionId: row.session_id,
          sessionExpiresAt: row.expires_at,
          mustChangePassword: row.must_change_password === 1,
        },
        sessionId: row.session_id,
        username: row.username,
        authMethod: row.auth_method,
        expiresAt: row.expires_at,
        totpEnabled: row.totp_secret !== null,
      };
    },

    async end(token) {
      const hash = sha256Hex(token);
      const row = await findSessionByHash(db, hash);
      await deleteSessionByHash(db, hash);
      if (row) deps.onEnded?.(row.session_id);
    },

    async isActive(sessionId) {
      return sessionExists(db, sessionId, clock.now().toISOString());
    },

    async endAllForUser(userId) {
      await deleteSessionsForUser(db, userId);
    },
  };
}
