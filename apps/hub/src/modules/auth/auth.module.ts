import type { Kysely } from 'kysely';
import type { RateLimiterFactory } from '../../http/rate-limit.js';
import type { OidcConfig } from '../../config/env.js';
import type { TransportRequest } from '../../http/transport-security.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { PasswordHasher } from '../../platform/password-hasher.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ApiKeyService } from '../keys/keys.service.js';
import { defineModule } from '../module.js';
import type { OidcAccounts } from '../users/oidc-accounts.service.js';
import type { SessionService } from '../users/session.service.js';
import type { UserService } from '../users/users.service.js';
import { authRawRoutes, authRoutes } from './auth.routes.js';
import { createLoginService } from './login.service.js';
import { oidcRawRoutes } from './oidc.routes.js';
import { createOidcService } from './oidc.service.js';
import { createTwoFactorService } from './two-factor.service.js';

export interface AuthModuleDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  box: SecretBox;
  passwords: PasswordHasher;
  users: UserService;
  sessions: SessionService;
  oidcAccounts: OidcAccounts;
  keys: Pick<ApiKeyService, 'rotateOwnerToken'>;
  /** Passwords travel only over TLS, as keys do (transport-security.ts). */
  isSecure(request: TransportRequest): boolean;
  /** Null when SVC_OIDC_ISSUER is unset: the OIDC routes answer 404. */
  oidc: OidcConfig | null;
  /** The sign-in throttles' limiters (the cluster's shared ones when several processes serve). */
  rateLimiters?: RateLimiterFactory;
}

/** Console sign-in: password and second factor, OIDC, the session's own account (password, owner token). */
export function createAuthModule(deps: AuthModuleDeps) {
  const { db, clock, audit, events, passwords, users, sessions } = deps;
  const twoFactor = createTwoFactorService({ db, clock, audit, events, box: deps.box, passwords, users });
  const login = createLoginService({
    db,
    clock,
    audit,
    sessions,
    twoFactor,
    passwords,
    users,
    ...(deps.rateLimiters ? { rateLimiters: deps.rateLimiters } : {}),
  });
  const oidc = deps.oidc
    ? createOidcService({ config: deps.oidc, clock, accounts: deps.oidcAccounts, login })
    : null;
  return defineModule({
    name: 'auth',
    services: { twoFactor, login },
    handlers: authRoutes({ twoFactor, users, keys: deps.keys }),
    rawHandlers: {
      ...authRawRoutes({ login, sessions, isSecure: (request) => deps.isSecure(request) }),
      ...oidcRawRoutes({ oidc }),
    },
    // A throttled address is answered before its body is read: a flood of refusals stays cheap (decision 0052).
    earlyRefusals: { 'auth.login': (request) => login.refuseEarly(request.ip) },
    retention: twoFactor.retention,
  });
}
