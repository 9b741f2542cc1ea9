import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Static, TSchema } from 'typebox';
import {
  idempotencyLimits,
  ListEnvelope,
  SuccessEnvelope,
  routerPath,
  type RouteContract,
  type RouteName,
  type Routes,
} from '@svc/protocol';
import type { Page } from '../platform/db/paging.js';
import { HubError, validationError } from '../platform/hub-error.js';
import { isIdempotencyKey, type IdempotencyStore } from '../platform/idempotency.js';
import type { ActionContext, CallSurface, Principal } from '../access/principal.js';
import { sendError } from './envelope.js';
import { serializationSchema } from './serialization-schema.js';

type StaticOf<S> = S extends TSchema ? Static<S> : undefined;

interface RouteInput<R extends RouteContract> {
  params: StaticOf<R['params']>;
  query: StaticOf<R['query']>;
  body: StaticOf<R['body']>;
  ctx: ActionContext;
}

type RouteOutput<R extends RouteContract> = R extends { response: infer S extends TSchema; list: true }
  ? Page<Static<S>>
  : R extends { response: infer S extends TSchema }
    ? Static<S>
    : never;

/** Answers one contract: typed input from its schemas, the data of its success envelope out. */
type Handler<K extends RouteName> = (input: RouteInput<Routes[K]>) => Promise<RouteOutput<Routes[K]>>;

export type Handlers = { [K in RouteName]?: Handler<K> };

/** A handler that writes its own reply (documents, certificates, streams); it still runs behind the guard. */
export type RawHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export type RawHandlers = Partial<Record<RouteName, RawHandler>>;

/**
 * A refusal a route can make from the request line and headers alone (the sign-in throttle of an address):
 * run before the body is read, parsed or validated, so a flood of refused requests costs as little as it can.
 * Null lets the request through to its handler, which still makes every check itself.
 */
type EarlyRefusal = (request: FastifyRequest) => HubError | null;

export type EarlyRefusals = Partial<Record<RouteName, EarlyRefusal>>;

declare module 'fastify' {
  interface FastifyContextConfig {
    contract?: RouteContract;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /** The surface that handed this request over (http/internal-dispatch.ts); null for the network's. */
    via: CallSurface | null;
  }
}

type AnyHandler = (input: {
  params: unknown;
  query: unknown;
  body: unknown;
  ctx: ActionContext;
}) => Promise<unknown>;

const anonymous: Principal = {
  authType: 'session',
  userId: null,
  role: 'viewer',
  scopes: [],
  key: null,
  allowedAssets: new Set<string>(),
};

function isPage(value: unknown): value is Page<unknown> {
  return typeof value === 'object' && value !== null && 'items' in value && 'meta' in value;
}

/** The request's `Idempotency-Key`, checked; null when it sent none. */
function idempotencyKeyOf(request: FastifyRequest): string | null {
  const header = request.headers[idempotencyLimits.header];
  if (header === undefined) return null;
  if (typeof header !== 'string' || !isIdempotencyKey(header)) {
    throw validationError(
      'headers.idempotency-key',
      'must be 8 to 128 characters of letters, digits, _ . : or -',
    );
  }
  return header;
}

/**
 * Registers every contract of a surface. A contract without a handler answers 501 `not_implemented` — after
 * the guard, so an unbuilt endpoint is as closed as a built one.
 */
export function registerContractRoutes(
  app: FastifyInstance,
  contracts: readonly RouteContract[],
  handlers: Handlers,
  rawHandlers: RawHandlers = {},
  idempotency: IdempotencyStore | null = null,
  earlyRefusals: EarlyRefusals = {},
): void {
  const handlerMap = handlers as Partial<Record<string, AnyHandler>>;
  const rawMap = rawHandlers as Partial<Record<string, RawHandler>>;
  const earlyMap = earlyRefusals as Partial<Record<string, EarlyRefusal>>;
  for (const contract of contracts) {
    const handler = handlerMap[contract.name];
    const raw = rawMap[contract.name];
    const early = earlyMap[contract.name];
    const status = contract.successStatus ?? 200;
    const response =
      contract.response && handler
        ? {
            [status]: serializationSchema(
              contract.list ? ListEnvelope(contract.response) : SuccessEnvelope(contract.response),
            ),
          }
        : undefined;
    app.route({
      method: contract.method,
      url: routerPath(contract),
      config: { contract },
      ...(contract.bodyLimit ? { bodyLimit: contract.bodyLimit } : {}),
      // After the guard (the app's own onRequest hook), before the body is read.
      ...(early
        ? {
            onRequest: async (request: FastifyRequest, reply: FastifyReply) => {
              const refusal = early(request);
              if (refusal) return sendError(request, reply, refusal);
              return undefined;
            },
          }
        : {}),
      schema: {
        ...(contract.params ? { params: contract.params } : {}),
        ...(contract.query ? { querystring: contract.query } : {}),
        ...(contract.body ? { body: contract.body } : {}),
        ...(response ? { response } : {}),
      },
      handler: async (request, reply) => {
        if (raw) return raw(request, reply);
        if (!handler) {
          const where = contract.plannedIn ? ` It is planned with ${contract.plannedIn}.` : '';
          return sendError(
            request,
            reply,
            new HubError('not_implemented', `${contract.method} ${contract.path} is not built yet.${where}`),
          );
        }
        // Public routes run with a principal that may see nothing, so no service can leak through them.
        const principal = request.principal ?? (contract.auth === 'public' ? anonymous : null);
        if (!principal) throw new HubError('unauthorized');
        const input = {
          params: request.params,
          query: request.query,
          body: request.body,
          ctx: {
            principal,
            requestId: request.id,
            ip: request.ip,
            origin: typeof request.headers.origin === 'string' ? request.headers.origin : null,
            ...(request.via ? { via: request.via } : {}),
          },
        };
        const key = contract.idempotent ? idempotencyKeyOf(request) : null;
        const result =
          key !== null && idempotency
            ? await idempotency.once(
                principal,
                key,
                { route: contract.name, target: JSON.stringify(request.params ?? {}) },
                () => handler(input),
              )
            : await handler(input);
        if (isPage(result) && result.serialized !== undefined) {
          const body = `{"request_id":${JSON.stringify(request.id)},${result.serialized}}`;
          return reply.code(status).type('application/json; charset=utf-8').send(body);
        }
        if (isPage(result))
          return reply.code(status).send({ request_id: request.id, data: result.items, meta: result.meta });
        return reply.code(status).send({ request_id: request.id, data: result });
      },
    });
  }
}
