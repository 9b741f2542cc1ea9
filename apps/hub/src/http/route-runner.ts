/**
 * Runs a typed route for a caller the hub has already authenticated (the MCP server's tools, decision 0073,
 * addendum 4) without a second HTTP request: the route's own guard (`authorize` from its contract, with the
 * caller's principal), its registered schemas compiled by the app's own validator compiler and checked in
 * Fastify's order (params, body, query), its handler behind the same `answer` the Fastify route calls
 * (register-routes.ts), its success serialized by the app's own serializer compiler from the schema the route
 * registered, its refusals mapped by the error handler's own `toHubError`, and its request counted by telemetry.
 *
 * It runs only what that proves the same. A call it cannot run as the route would (a raw handler, a route with
 * an early refusal, a path parameter the router would not route — empty, or longer than it takes — a body over
 * the route's limit is refused as Fastify refuses it) is either answered as Fastify answers it or handed back
 * (null) for the HTTP pipeline (internal-dispatch.ts, through inject()).
 */
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { fullPath, limits, newId } from '@svc/protocol';
import type { ActionContext, CallSurface, Principal } from '../access/principal.js';
import { HubError } from '../platform/hub-error.js';
import type { Telemetry } from '../platform/telemetry/telemetry.js';
import { authorize } from './authorize.js';
import { errorEnvelope } from './envelope.js';
import { toHubError } from './error-handler.js';
import type { TypedRoute } from './register-routes.js';
import { compileValidator } from './validation.js';

/** The longest path parameter the router takes (app.ts `maxParamLength`): a longer one goes to the router. */
export const maxParamLength = 500;

type Validator = ReturnType<typeof compileValidator>;

/** The app's serializer compiler, as Fastify hands it a route's response schema. */
export type SerializerCompiler = (route: {
  schema: unknown;
  method: string;
  url: string;
  httpStatus: string;
}) => (data: unknown) => string;

export interface RunnerCall {
  route: TypedRoute;
  params: Readonly<Record<string, string>>;
  query: Readonly<Record<string, unknown>>;
  /** Undefined for a call without a body. */
  body: unknown;
  principal: Principal;
  ip: string;
  via: CallSurface;
}

interface RunnerAnswer {
  status: number;
  /** The route's envelope (success or error), as Fastify would have sent it; '' when `members` stands for it. */
  text: string;
  /** A list page kept serialized by its route: the success envelope's members after `request_id`, as kept. */
  members?: string;
}

interface CompiledRoute {
  params: Validator | null;
  body: Validator | null;
  querystring: Validator | null;
  serialize: ((data: unknown) => string) | null;
}

/** The query as the router would hand it to validation: each name's values as text, repeated names an array. */
function queryText(query: Readonly<Record<string, unknown>>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(query)) {
    const texts: string[] = [];
    for (const item of Array.isArray(value) ? (value as unknown[]) : [value]) {
      if (item === undefined || item === null) continue;
      // Numbers and booleans read the same in JSON as in a query string (internal-dispatch.ts writes them so).
      texts.push(typeof item === 'string' ? item : JSON.stringify(item));
    }
    const [first] = texts;
    if (first === undefined) continue;
    out[name] = texts.length === 1 ? first : texts;
  }
  return out;
}

/** Whether the router would route each parameter to this route as it is: one non-empty segment it takes. */
function routable(params: Readonly<Record<string, string>>): boolean {
  for (const value of Object.values(params)) {
    if (value === '' || encodeURIComponent(value).length > maxParamLength) return false;
  }
  return true;
}

export interface RouteRunner {
  /** The route's answer to the call, or null when only the HTTP pipeline may answer it. */
  run(call: RunnerCall): Promise<RunnerAnswer> | null;
}

export function createRouteRunner(deps: {
  /** Read when a route is first run (the app builds its compiler once routes are registered). */
  serializerCompiler(): SerializerCompiler | undefined;
  telemetry?: Pick<Telemetry, 'httpRequest'>;
  log: FastifyBaseLogger;
}): RouteRunner {
  const compiled = new Map<string, CompiledRoute | null>();

  function compile(route: TypedRoute): CompiledRoute | null {
    const known = compiled.get(route.contract.name);
    if (known !== undefined) return known;
    const { schema, contract } = route;
    let serialize: CompiledRoute['serialize'] = null;
    if (schema.response !== undefined) {
      const compiler = deps.serializerCompiler();
      // Not built yet (the app is not ready): the HTTP pipeline answers, and this is tried again next time.
      if (!compiler) return null;
      serialize = compiler({
        schema: schema.response,
        method: contract.method,
        url: fullPath(contract),
        httpStatus: String(route.status),
      });
    }
    const part = (value: unknown, httpPart: string): Validator | null =>
      value === undefined ? null : compileValidator({ schema: value as object, httpPart });
    const built: CompiledRoute = {
      params: part(schema.params, 'params'),
      body: part(schema.body, 'body'),
      querystring: part(schema.querystring, 'querystring'),
      serialize,
    };
    compiled.set(contract.name, built);
    return built;
  }

  /** Fastify's validation of one part: the data (coerced and defaulted in place), or the error it throws. */
  function check(validator: Validator | null, holder: Record<string, unknown>, part: string): void {
    if (!validator) return;
    const data = holder[part] === undefined ? null : holder[part];
    if (
      validator(data, { parentData: holder, parentDataProperty: part } as unknown as Parameters<Validator>[1])
    )
      return;
    // The error handler's own mapping of a Fastify validation error (error-handler.ts toHubError).
    const refusal = toHubError({ validation: validator.errors ?? [], validationContext: part });
    throw refusal ?? new HubError('validation', 'The request is not valid.');
  }

  async function answer(call: RunnerCall, route: TypedRoute, built: CompiledRoute, ctx: ActionContext) {
    const { contract } = route;
    // The guard (app.ts onRequest) with the principal handed over, on the parameters as the router hands them.
    authorize(contract, call.principal, { ...call.params });
    if (call.body !== undefined) {
      const bytes = Buffer.byteLength(JSON.stringify(call.body));
      if (bytes > (contract.bodyLimit ?? limits.bodyBytes)) throw new HubError('payload_too_large');
    }
    const request: Record<string, unknown> = {
      params: { ...call.params },
      body: call.body,
      querystring: queryText(call.query),
    };
    // Fastify's order: params, body, query.
    check(built.params, request, 'params');
    check(built.body, request, 'body');
    check(built.querystring, request, 'querystring');
    const input = { params: request.params, query: request.querystring, body: request.body, ctx };
    // No Idempotency-Key: a tool call carries no headers of its own.
    return route.answer(input, null);
  }

  return {
    run(call) {
      const { route } = call;
      if (route.early || !routable(call.params)) return null;
      const built = compile(route);
      if (!built) return null;
      const start = performance.now();
      const requestId = newId('request');
      const ctx: ActionContext = {
        principal: call.principal,
        requestId,
        ip: call.ip,
        origin: null,
        via: call.via,
      };
      const settle = (status: number) => {
        deps.telemetry?.httpRequest({
          route: fullPath(route.contract),
          method: route.contract.method,
          status,
          seconds: (performance.now() - start) / 1000,
        });
      };
      return answer(call, route, built, ctx).then(
        (result): RunnerAnswer => {
          settle(route.status);
          if ('page' in result) return { status: route.status, text: '', members: result.page };
          const text = built.serialize ? built.serialize(result.envelope) : JSON.stringify(result.envelope);
          return { status: route.status, text };
        },
        (error: unknown): RunnerAnswer => {
          // The error handler's answer (error-handler.ts): a known refusal as it is, anything else a 500, logged.
          const known = toHubError(error);
          if (!known || known.status >= 500) {
            deps.log.error({ err: error, reqId: requestId }, known ? 'request failed' : 'unexpected error');
          }
          const refusal = known ?? new HubError('internal_error');
          settle(refusal.status);
          return { status: refusal.status, text: JSON.stringify(errorEnvelope(requestId, refusal)) };
        },
      );
    },
  };
}
