import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
  type FastifyServerFactory,
} from 'fastify';
import { fullPath, limits, newId, routeList, type RouteContract } from '@svc/protocol';
import type { RateLimitConfig } from './config/env.js';
import { createAuthenticator } from './http/authenticate.js';
import { handleClientError } from './http/client-error.js';
import { buildLazySerializer } from './http/lazy-serializer.js';
import { isConsoleRequest, type ConsoleHandler } from './http/console.js';
import { authorize } from './http/authorize.js';
import { sendError } from './http/envelope.js';
import { installErrorHandler } from './http/error-handler.js';
import { localRateLimiters, type RateLimiterFactory } from './http/rate-limit.js';
import { HubLogController } from './http/request-log.js';
import { createRouteMatcher } from './http/route-match.js';
import { createRouteRunner, maxParamLength, type SerializerCompiler } from './http/route-runner.js';
import type { InternalDispatch } from './http/internal-dispatch.js';
import type { IdempotencyStore } from './platform/idempotency.js';
import {
  registerContractRoutes,
  type EarlyRefusals,
  type Handlers,
  type RawHandler,
} from './http/register-routes.js';
import { createClientIpReader, createOriginCheck, type TransportRequest } from './http/transport-security.js';
import { createUpgradeRouter, type PublicUpgradeHandlers, type UpgradeHandlers } from './http/upgrade.js';
import { compileValidator } from './http/validation.js';
import { HubError } from './platform/hub-error.js';
import type { Logger } from './platform/logger.js';
import { createRefusalLog, type RefusalLog } from './platform/refusal-log.js';
import type { Telemetry } from './platform/telemetry/telemetry.js';
import type { Principal } from './access/principal.js';

export interface AppDeps {
  logger: Logger;
  /** Shared with the agent channel, so one address's refusals are summed up together; one of its own if absent. */
  refusals?: RefusalLog;
  /** Whether a request arrived over TLS (transport-security.ts), shared with the sign-in routes. */
  isSecure(request: TransportRequest): boolean;
  trustedProxies: readonly string[];
  publicOrigin?: string | null;
  rateLimit: RateLimitConfig;
  /** Makes the request limiters: this process's own by default, the cluster's shared ones (decision 0040). */
  rateLimiters?: RateLimiterFactory;
  verifyApiKey(text: string): Promise<Principal | null>;
  verifySession?(token: string): Promise<Principal | null>;
  /** Builds the HTTPS server (TLS modes auto/external); absent for plain HTTP and for inject() tests. */
  serverFactory?: FastifyServerFactory;
  handlers: Handlers;
  rawHandlers: Partial<Record<string, RawHandler>>;
  /** Refusals made before a route's body is read (the sign-in throttle of an address). */
  earlyRefusals?: EarlyRefusals;
  /** WebSocket endpoints by contract name, behind the same guard as the routes. */
  upgradeHandlers?: UpgradeHandlers;
  /** `public` upgrade contracts that check their own credential (the agent channel). */
  publicUpgradeHandlers?: PublicUpgradeHandlers;
  routes?: readonly RouteContract[];
  /** The web console's files: every GET outside `/api` that no route matches (http/console.ts). */
  console?: ConsoleHandler;
  /** Counts each answered request by its route's template (never the raw URL), method and status. */
  telemetry?: Pick<Telemetry, 'httpRequest'>;
  /** Where `idempotent` contracts keep their answers; without it the `Idempotency-Key` header is ignored. */
  idempotency?: IdempotencyStore;
  /** Routes run inside the hub for a caller already authenticated (the MCP server's tools). */
  internalDispatch?: InternalDispatch;
}

/** The Fastify instance without listening: tests call inject() on it, main.ts listens. */
export function buildApp(deps: AppDeps): FastifyInstance {
  const routes = deps.routes ?? routeList;
  // Typed as Fastify's base logger so the instance type stays the plain FastifyInstance.
  const loggerInstance: FastifyBaseLogger = deps.logger;
  const app = Fastify({
    loggerInstance,
    genReqId: () => newId('request'),
    requestIdHeader: false,
    bodyLimit: limits.bodyBytes,
    trustProxy: deps.trustedProxies.length > 0 ? [...deps.trustedProxies] : false,
    return503OnClosing: true,
    logController: new HubLogController(deps.refusals ?? createRefusalLog({ logger: deps.logger })),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength },
    ...(deps.serverFactory ? { serverFactory: deps.serverFactory } : {}),
    // Each route's response serializer is built on its first answer (http/lazy-serializer.ts).
    schemaController: { compilersFactory: { buildSerializer: buildLazySerializer } },
    // Requests the HTTP parser refuses (unknown method, over-long header) get the envelope and headers too.
    clientErrorHandler: handleClientError,
    // Requests the router refuses (bad percent-encoding, over-long parameters) still get the envelope.
    frameworkErrors: (error, request, reply) => {
      const code = (error.statusCode ?? 400) >= 500 ? 'internal_error' : 'validation';
      void sendError(request, reply, new HubError(code, `The request URL is not valid: ${error.message}`));
    },
  });
  // JSON only: a text/plain body is refused with 415 rather than parsed as a string.
  app.removeContentTypeParser('text/plain');
  app.setValidatorCompiler(compileValidator);
  app.decorateRequest('principal', null);
  app.decorateRequest('via', null);

  const authenticator = createAuthenticator({
    verifyApiKey: (text) => deps.verifyApiKey(text),
    ...(deps.verifySession
      ? { verifySession: (token: string) => deps.verifySession?.(token) ?? Promise.resolve(null) }
      : {}),
    isSameOrigin: createOriginCheck({
      publicOrigin: deps.publicOrigin ?? null,
      trustedProxies: deps.trustedProxies,
    }),
    isSecure: (request) => deps.isSecure(request),
    clientIp: createClientIpReader(deps.trustedProxies),
    perIp: deps.rateLimit.enabled
      ? (deps.rateLimiters ?? localRateLimiters)('api_per_ip', deps.rateLimit.perIpPerMinute)
      : null,
    perKey: deps.rateLimit.enabled
      ? (deps.rateLimiters ?? localRateLimiters)('api_per_key', deps.rateLimit.perKeyPerMinute)
      : null,
  });

  // The guard: authentication, then authorization from the contract, before body parsing and validation.
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const contract = request.routeOptions.config.contract;
    if (!contract || contract.auth === 'public') return;
    // A route an MCP tool runs: its caller was authenticated on the request that carried the call.
    const handedOver = deps.internalDispatch?.callerOf(request.raw) ?? null;
    const principal = handedOver?.principal ?? (await authenticator.authenticate(request.raw));
    authorize(contract, principal, request.params as Record<string, string>);
    request.principal = principal;
    request.via = handedOver?.via ?? null;
  });

  app.addHook('onSend', async (request, reply) => {
    void reply.header('X-Content-Type-Options', 'nosniff');
    void reply.header('X-Frame-Options', 'DENY');
    if ((request.raw.socket as { encrypted?: boolean }).encrypted === true) {
      void reply.header('Strict-Transport-Security', 'max-age=63072000');
    }
    if (request.url.startsWith('/api/')) void reply.header('Cache-Control', 'no-store');
  });

  // Last of the onSend hooks: an internal call's answer goes to its caller in the process (internal-dispatch.ts).
  const { internalDispatch } = deps;
  if (internalDispatch) {
    app.addHook('onSend', async (request, _reply, payload) =>
      internalDispatch.keepAnswer(request.raw, payload),
    );
  }

  const { telemetry } = deps;
  if (telemetry) {
    app.addHook('onResponse', async (request, reply) => {
      const contract = request.routeOptions.config.contract;
      telemetry.httpRequest({
        route: contract ? fullPath(contract) : 'other',
        method: request.method,
        status: reply.statusCode,
        seconds: reply.elapsedTime / 1000,
      });
    });
  }

  installErrorHandler(app);

  // Routes that share a path with another method, for telling 405 from 404.
  const matcher = createRouteMatcher(routes);
  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const methods = matcher.methodsAt(path);
    if (deps.console && methods.length === 0 && isConsoleRequest(request.method, request.url)) {
      return deps.console(request, reply);
    }
    if (path.startsWith('/api/v2/')) {
      // Authentication before existence: an anonymous caller cannot map the API by probing.
      await authenticator.authenticate(request.raw);
    }
    if (methods.length > 0) {
      void reply.header('Allow', methods.join(', '));
      return sendError(
        request,
        reply,
        new HubError(
          'method_not_allowed',
          `${request.method} is not allowed on ${path}; use ${methods.join(' or ')}.`,
        ),
      );
    }
    return sendError(request, reply, new HubError('not_found', `No endpoint ${request.method} ${path}.`));
  });

  const typedRoutes = registerContractRoutes(
    app,
    routes,
    deps.handlers,
    deps.rawHandlers,
    deps.idempotency ?? null,
    deps.earlyRefusals ?? {},
  );
  // The MCP server's tools run these routes in the process, as registered here (http/route-runner.ts).
  internalDispatch?.attach(
    app,
    typedRoutes,
    createRouteRunner({
      serializerCompiler: () => app.serializerCompiler as SerializerCompiler | undefined,
      ...(telemetry ? { telemetry } : {}),
      log: app.log,
    }),
  );
  app.server.on(
    'upgrade',
    createUpgradeRouter({
      routes,
      authenticator,
      handlers: deps.upgradeHandlers ?? {},
      publicHandlers: deps.publicUpgradeHandlers ?? {},
      onError: (error) => {
        deps.logger.error({ err: error }, 'WebSocket upgrade failed');
      },
    }),
  );
  return app;
}
