/**
 * The one credential seam: the transport rule, the bearer key, the session cookie and its same-origin rule, and
 * the rate limits, read from a raw request. The Fastify guard hands it `request.raw`, the upgrade path the
 * request Node gives it, so an HTTP route and a WebSocket upgrade accept and refuse exactly the same callers.
 * (The agent channel has its own credential, agents/channel-auth.ts, read by the same bearer parser under the
 * same transport rule and client address.)
 */
import type { IncomingMessage } from 'node:http';
import { isMutatingMethod } from '@svc/protocol';
import { readCookie, sessionCookieName } from './session-cookie.js';
import { HubError } from '../platform/hub-error.js';
import type { Principal } from '../access/principal.js';
import type { RateLimit } from './rate-limit.js';
import type { TransportRequest } from './transport-security.js';

export interface Authenticator {
  /**
   * The principal behind the request's credentials. Throws 401 for missing or invalid credentials,
   * 403 `https_required` for a key over plain HTTP, 403 `forbidden` for a cookie on a cross-origin mutation or
   * upgrade, 429 when the client or key is over its rate.
   */
  authenticate(request: IncomingMessage): Promise<Principal>;
}

export interface AuthenticatorDeps {
  verifyApiKey(text: string): Promise<Principal | null>;
  /** Resolves a console session cookie; absent where sessions are not wired (some tests). */
  verifySession?(token: string): Promise<Principal | null>;
  /** Whether the request's Origin is this hub's own (for cookie-authenticated mutations and upgrades). */
  isSameOrigin?(request: TransportRequest): boolean;
  isSecure(request: TransportRequest): boolean;
  /** The client address behind trusted proxies, as Fastify's `request.ip` has it. */
  clientIp(request: IncomingMessage): string;
  /** Null when rate limits are switched off. */
  perIp: RateLimit | null;
  perKey: RateLimit | null;
}

const bearerPattern = /^bearer[ ]+(\S+)[ ]*$/i;

/**
 * The credential of an `Authorization: Bearer <credential>` header (scheme case-insensitive), or null for any
 * other form. The one parser of API keys and agent credentials alike.
 */
export function readBearer(header: string): string | null {
  return bearerPattern.exec(header)?.[1] ?? null;
}

function rateLimited(seconds: number): HubError {
  return new HubError('rate_limited', undefined, { headers: { 'Retry-After': String(seconds) } });
}

export function createAuthenticator(deps: AuthenticatorDeps): Authenticator {
  async function authenticateSession(request: IncomingMessage): Promise<Principal> {
    const token = deps.verifySession ? readCookie(request.headers.cookie, sessionCookieName) : null;
    const principal = token && deps.verifySession ? await deps.verifySession(token) : null;
    if (!principal)
      throw new HubError('unauthorized', 'Send an API key as "Authorization: Bearer svc_…" or sign in.');
    // A cookie rides along on cross-site requests; a mutation or upgrade must come from the hub's own pages.
    const needsOrigin = isMutatingMethod(request.method ?? 'GET') || request.headers.upgrade !== undefined;
    if (needsOrigin && !(deps.isSameOrigin?.(request) ?? false)) {
      throw new HubError('forbidden', 'Cross-origin request refused: the Origin header must be this hub.');
    }
    return principal;
  }

  return {
    async authenticate(request) {
      const header = request.headers.authorization;
      if (header === undefined) return authenticateSession(request);
      // Every request that presents a credential counts against its IP, valid or not, so guessing is slow.
      const ipDecision = deps.perIp?.take(deps.clientIp(request));
      if (ipDecision && !ipDecision.allowed) throw rateLimited(ipDecision.retryAfterSeconds);
      if (!deps.isSecure(request)) {
        throw new HubError(
          'https_required',
          'API keys are accepted only over HTTPS; this request was plain HTTP.',
        );
      }
      const credential = readBearer(header);
      if (credential === null)
        throw new HubError('unauthorized', 'The Authorization header must be "Bearer <API key>".');
      const principal = await deps.verifyApiKey(credential);
      if (!principal)
        throw new HubError('unauthorized', 'The API key is not valid, has expired or was revoked.');
      const keyDecision = principal.key ? deps.perKey?.take(principal.key.id) : undefined;
      if (keyDecision && !keyDecision.allowed) throw rateLimited(keyDecision.retryAfterSeconds);
      return principal;
    },
  };
}
