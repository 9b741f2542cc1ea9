import type { FastifyRequest } from 'fastify';
import type { RawHandlers } from '../../http/register-routes.js';
import { HubError } from '../../platform/hub-error.js';
import type { RequestMeta } from './login.service.js';
import { oidcFlowLifetimeMs, type OidcService } from './oidc.service.js';
import { readCookie, sessionCookie } from '../../http/session-cookie.js';

/** The cookie that binds a sign-in at the provider to the browser that started it. */
const oidcStateCookieName = 'svc_oidc_state';
const oidcCookiePath = '/api/auth/oidc';

function oidcStateCookie(state: string): string {
  return `${oidcStateCookieName}=${state}; Path=${oidcCookiePath}; HttpOnly; Secure; SameSite=Lax; Max-Age=${oidcFlowLifetimeMs / 1000}`;
}

function clearedOidcStateCookie(): string {
  return `${oidcStateCookieName}=; Path=${oidcCookiePath}; HttpOnly; Secure; SameSite=Lax; Max-Age=0`;
}

function metaOf(request: FastifyRequest): RequestMeta {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent : null, requestId: request.id };
}

function queryOf(request: FastifyRequest): URLSearchParams {
  const raw = request.raw.url ?? '';
  const at = raw.indexOf('?');
  return new URLSearchParams(at === -1 ? '' : raw.slice(at + 1));
}

/**
 * GET /api/auth/oidc/start and /callback. `oidc` is null when SVC_OIDC_ISSUER is unset: both answer 404.
 */
export function oidcRawRoutes(deps: { oidc: OidcService | null }) {
  const service = (): OidcService => {
    if (!deps.oidc) throw new HubError('not_found', 'OIDC sign-in is not configured');
    return deps.oidc;
  };
  return {
    'auth.oidcStart': async (_request, reply) => {
      const { url, state } = await service().start();
      return reply.header('Set-Cookie', oidcStateCookie(state)).redirect(url, 302);
    },
    'auth.oidcCallback': async (request, reply) => {
      const oidc = service();
      // Whatever the outcome, the flow is over: the browser drops its state (a session cookie follows on success).
      void reply.header('Set-Cookie', clearedOidcStateCookie());
      const outcome = await oidc.finish({
        params: queryOf(request),
        cookieState: readCookie(request.headers.cookie, oidcStateCookieName),
        meta: metaOf(request),
      });
      if (!outcome.token) throw new HubError('unauthorized');
      return reply.header('Set-Cookie', sessionCookie(outcome.token)).redirect('/', 302);
    },
  } satisfies RawHandlers;
}
