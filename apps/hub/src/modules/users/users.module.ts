import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { PasswordHasher } from '../../platform/password-hasher.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ApiKeyService } from '../keys/keys.service.js';
import type { ScheduleService } from '../schedules/schedules.service.js';
import { defineModule } from '../module.js';
import { createOidcAccounts } from './oidc-accounts.service.js';
import { ownerCredentialsPath } from './owner-bootstrap.js';
import { createSessionService } from './session.service.js';
import { userRoutes } from './users.routes.js';
import { createUserService, type UserDataHolder } from './users.service.js';

export { bootstrapOwner, localOwnerContext, type OwnerBootstrapResult } from './owner-bootstrap.js';

/**
 * Console users: accounts and their passwords, the sessions they sign in to, the accounts OIDC makes, and the
 * owner made at first run (`bootstrapOwner`, which hub.ts runs once the modules are built).
 */
export function createUsersModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  passwords: PasswordHasher;
  dataDir: string;
  keys: Pick<ApiKeyService, 'deleteAllOfUser' | 'announceDeleted'>;
  /** The schedules module (built later): which schedules run as a user being deleted. */
  schedules: () => Pick<ScheduleService, 'runningAs' | 'reassignRunAs'>;
  /** The modules (built later) keeping data of users, which a user's delete removes with them. */
  userData: () => readonly UserDataHolder[];
  /** Told after a sign-out (hub.ts: the credential lifetime, so the session's event streams close). */
  onSessionEnded?: (sessionId: string) => void;
}) {
  const { db, clock, audit, events, passwords } = deps;
  const users = createUserService({
    db,
    clock,
    audit,
    events,
    passwords,
    ownerCredentialsPath: ownerCredentialsPath(deps.dataDir),
    keys: deps.keys,
    schedules: deps.schedules,
    userData: deps.userData,
  });
  const sessions = createSessionService({
    db,
    clock,
    ...(deps.onSessionEnded ? { onEnded: deps.onSessionEnded } : {}),
  });
  const oidcAccounts = createOidcAccounts({ db, clock, audit, events });
  return defineModule({
    name: 'users',
    services: { users, sessions, oidcAccounts },
    handlers: userRoutes(users),
  });
}
