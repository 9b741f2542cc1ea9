/**
 * Accounts of OpenID Connect sign-ins: found by the provider's subject (their role follows the provider's
 * mapping, except the owner's), or made under the first free username. The auth module runs the sign-in
 * flow and asks here for the account; sign-ins for one subject are serialized there.
 */
import { newId, type AssignableRole, type Role } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  findUserByOidcSubject,
  findUserByUsername,
  insertUser,
  isUniqueViolation,
  updateUser,
  type UserRow,
} from './users.repository.js';

/** What an OIDC account can never log in with: not a bcrypt hash, so password checks always fail. */
const oidcPasswordHash = '!oidc';

interface OidcAccountRequest {
  /** `<issuer>|<sub>`: the provider's subject, unique per issuer. */
  subject: string;
  issuer: string;
  role: Exclude<AssignableRole, 'owner'>;
  /** Names to try in order for a new account. */
  usernames: readonly string[];
  requestId: string | null;
  ip: string | null;
}

export interface OidcAccounts {
  /** The account's id: the subject's account, its role brought up to date, or a new one. */
  provision(request: OidcAccountRequest): Promise<string>;
}

export function createOidcAccounts(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
}): OidcAccounts {
  const { db, clock, audit, events } = deps;

  /** The account acts on itself: the audit names it as the actor. */
  function contextFor(user: { id: string; role: string }, request: OidcAccountRequest): ActionContext {
    return {
      principal: {
        authType: 'session',
        userId: user.id,
        role: user.role as Role,
        scopes: null,
        key: null,
        allowedAssets: null,
      },
      requestId: request.requestId,
      ip: request.ip,
    };
  }

  return {
    async provision(request) {
      const { subject, role } = request;
      const existing = await findUserByOidcSubject(db, subject);
      const now = clock.now().toISOString();
      if (existing) {
        if (existing.role !== 'owner' && existing.role !== role) {
          await db.transaction().execute(async (trx) => {
            await updateUser(trx, existing.id, { role, updated_at: now });
            await audit.record(trx, contextFor(existing, request), {
              action: 'user.updated',
              targetType: 'user',
              targetId: existing.id,
              detail: { via: 'oidc', fields: ['role'], from: existing.role, to: role },
            });
          });
          events.publish('user.updated', { asset_ids: [], user_id: existing.id, change: 'role' });
        }
        return existing.id;
      }
      for (const username of request.usernames) {
        if (await findUserByUsername(db, username)) continue;
        const row: UserRow = {
          id: newId('user'),
          username,
          password_hash: oidcPasswordHash,
          role,
          created_at: now,
          updated_at: now,
          totp_secret: null,
          must_change_password: 0,
          totp_pending_secret: null,
          totp_last_step: null,
          oidc_subject: subject,
          disabled_at: null,
        };
        try {
          await db.transaction().execute(async (trx) => {
            await insertUser(trx, row);
            await audit.record(trx, contextFor(row, request), {
              action: 'user.created',
              targetType: 'user',
              targetId: row.id,
              detail: { via: 'oidc', username, role, issuer: request.issuer },
            });
          });
          events.publish('user.created', { asset_ids: [], user_id: row.id, username, role });
          return row.id;
        } catch (error) {
          if (isUniqueViolation(error)) continue; // the name was taken in between: the next one
          throw error;
        }
      }
      throw new HubError('conflict', 'No free username could be found for this account.');
    },
  };
}
