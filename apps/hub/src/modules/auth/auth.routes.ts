import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LoginRequest, TwoFactorLogin } from '@svc/protocol';
import { sendData } from '../../http/envelope.js';
import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import { HubError } from '../../platform/hub-error.js';
import type { ApiKeyService } from '../keys/keys.service.js';
import type { UserService } from '../users/users.service.js';
import type { LoginOutcome, LoginService, RequestMeta } from './login.service.js';
import {
  clearedSessionCookie,
  readCookie,
  sessionCookie,
  sessionCookieName,
} from '../../http/session-cookie.js';
import type { SessionService } from '../users/session.service.js';
import type { TwoFactorService } from './two-factor.service.js';

function metaOf(request: FastifyRequest): RequestMeta {
  const agent = request.headers['user-agent'];
  return { ip: request.ip, userAgent: typeof agent === 'string' ? agent : null, requestId: request.id };
}

function reply(request: FastifyRequest, res: FastifyReply, outcome: LoginOutcome): FastifyReply {
  if (outcome.token) void res.header('Set-Cookie', sessionCookie(outcome.token));
  return sendData(request, res, outcome.result);
}

export function authRawRoutes(deps: {
  login: LoginService;
  sessions: SessionService;
  /** Passwords travel only over TLS, as keys do (loopback counts in disabled mode). */
  isSecure: (request: FastifyRequest) => boolean;
}) {
  const requireSecure = (request: FastifyRequest) => {
    if (!deps.isSecure(request)) throw new HubError('https_required', 'Sign in over HTTPS.');
  };
  return {
    'auth.login': async (request, res) => {
      requireSecure(request);
      const body = request.body as LoginRequest;
      return reply(request, res, await deps.login.login(body.username, body.password, metaOf(request)));
    },
    'auth.login2fa': async (request, res) => {
      requireSecure(request);
      const body = request.body as TwoFactorLogin;
      return reply(
        request,
        res,
        await deps.login.completeTwoFactor(body.challenge_token, body.code, metaOf(request)),
      );
    },
    'auth.me': async (request, res) => {
      const token = readCookie(request.headers.cookie, sessionCookieName);
      const session = token ? await deps.sessions.resolve(token) : null;
      if (!session?.principal.userId) throw new HubError('unauthorized');
      return sendData(request, res, {
        id: session.principal.userId,
        username: session.username,
        role: session.principal.role,
        totp_enabled: session.totpEnabled,
        auth_method: session.authMethod,
        session_expires_at: session.expiresAt,
        must_change_password: session.principal.mustChangePassword === true,
      });
    },
    'auth.logout': async (request, res) => {
      const token = readCookie(request.headers.cookie, sessionCookieName);
      if (token) await deps.sessions.end(token);
      void res.header('Set-Cookie', clearedSessionCookie());
      return sendData(request, res, { signed_out: true });
    },
  } satisfies RawHandlers;
}

export function authRoutes(deps: {
  twoFactor: TwoFactorService;
  users: Pick<UserService, 'changeOwnPassword'>;
  keys: Pick<ApiKeyService, 'rotateOwnerToken'>;
}) {
  const { twoFactor, users, keys } = deps;
  return {
    'auth.2faStatus': async ({ ctx }) => ({ enabled: await twoFactor.isEnabled(ctx.principal.userId ?? '') }),
    'auth.2faSetup': ({ ctx }) => twoFactor.setup(ctx),
    'auth.2faVerify': ({ ctx, body }) => twoFactor.verifySetup(ctx, body.code),
    'auth.2faDisable': async ({ ctx, body }) => {
      await twoFactor.disable(ctx, body.code);
      return { enabled: false };
    },
    'auth.2faRecoveryCodes': ({ ctx, body }) => twoFactor.regenerateRecoveryCodes(ctx, body.code),
    'auth.changePassword': async ({ body, ctx }) => {
      await users.changeOwnPassword(ctx, body);
      return { changed: true };
    },
    'auth.ownerToken': ({ ctx }) => keys.rotateOwnerToken(ctx),
  } satisfies Handlers;
}
