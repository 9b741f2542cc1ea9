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

/** What a typed route answers: its envelope as text (a list page kept serialized) or for its serializer. */
type TypedAnswer = { page: string; requestId: string | null } | { envelope: Record<string, unknown> };

/** The input of a typed route once its guard and validation have passed. */
interface TypedInput {
  params: unknown;
  query: unknown;
  body: unknown;
  ctx: ActionContext;
}

/**
 * A route a typed handler answers, as registered: its contract, the schemas it was registered with (validated
 * by the app's validator compiler, serialized by its serializer compiler) and its handler behind the request
 * objects (the idempotency store, the page or envelope it answers). The Fastify route runs exactly this after
 * its guard and validation, and so does the MCP server's route runner (http/route-runner.ts).
 */
export interface TypedRoute {
  contract: RouteContract;
  schema: {
    params?: unknown;
    querystring?: unknown;
    body?: unknown;
    /** The success status's serialization schema. */
    response?: unknown;
  };
  status: number;
  /** Whether a refusal runs before the body is read (the route then is not run outside Fastify). */
  early: boolean;
  answer(input: TypedInput, idempotencyKey: string | null): Promise<TypedAnswer>;
}

/** The envelope's text: a kept page written around its serialized members, else null (the serializer writes it). */
function pageText(answer: TypedAnswer): string | null {
  return 'page' in answer ? `{"request_id":${JSON.stringify(answer.requestId)},${answer.page}}` : null;
}

/**
 * A contract's schemas as its route is registered with them: the request parts Ajv validates, and the success
 * envelope's serialization schema (absent when the contract names no response).
 */
export function contractSchemas(contract: RouteContract): {
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  response?: unknown;
} {
  return {
    ...(contract.params ? { params: contract.params } : {}),
    ...(contract.query ? { querystring: contract.query } : {}),
    ...(contract.body ? { body: contract.body } : {}),
    ...(contract.response
      ? {
          response: serializationSchema(
            contract.list ? ListEnvelope(contract.response) : SuccessEnvelope(contract.response),
          ),
        }
      : {}),
  };
}

/**
 * Registers every contract of a surface. A contract without a handler answers 501 `not_implemented` — after
 * the guard, so an unbuilt endpoint is as closed as a built one. Returns the routes a typed handler answers.
 */
export function registerContractRoutes(
  app: FastifyInstance,
  contracts: readonly RouteContract[],
  handlers: Handlers,
  rawHandlers: RawHandlers = {},
  idempotency: IdempotencyStore | null = null,
  earlyRefusals: EarlyRefusals = {},
): ReadonlyMap<string, TypedRoute> {
  const handlerMap = handlers as Partial<Record<string, AnyHandler>>;
  const rawMap = rawHandlers as Partial<Record<string, RawHandler>>;
  const earlyMap = earlyRefusals as Partial<Record<string, EarlyRefusal>>;
  const typedRoutes = new Map<string, TypedRoute>();
  for (const contract of contracts) {
    const handler = handlerMap[contract.name];
    const raw = rawMap[contract.name];
    const early = earlyMap[contract.name];
    const status = contract.successStatus ?? 200;
    const { response: contractResponse, ...schema } = contractSchemas(contract);
    const responseSchema = handler ? contractResponse : undefined;
    const response = responseSchema ? { [status]: responseSchema } : undefined;
    const typed: TypedRoute | null =
      handler && !raw
        ? {
            contract,
            schema: { ...schema, ...(responseSchema ? { response: responseSchema } : {}) },
            status,
            early: early !== undefined,
            answer: async (input, key) => {
              const result =
                key !== null && idempotency
                  ? await idempotency.once(
                      input.ctx.principal,
                      key,
                      { route: contract.name, target: JSON.stringify(input.params ?? {}) },
                      () => handler(input),
                    )
                  : await handler(input);
              const requestId = input.ctx.requestId;
              if (isPage(result) && result.serialized !== undefined) {
                return { page: result.serialized, requestId };
              }
              if (isPage(result)) {
                return { envelope: { request_id: requestId, data: result.items, meta: result.meta } };
              }
              return { envelope: { request_id: requestId, data: result } };
            },
          }
        : null;
    if (typed) typedRoutes.set(contract.name, typed);
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
      schema: { ...schema, ...(response ? { response } : {}) },
      handler: async (request, reply) => {
        if (raw) return raw(request, reply);
        if (!typed) {
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
        const answer = await typed.answer(input, key);
        const text = pageText(answer);
        if (text !== null) return reply.code(status).type('application/json; charset=utf-8').send(text);
        return reply.code(status).send('envelope' in answer ? answer.envelope : null);
      },
    });
  }
  return typedRoutes;
}
