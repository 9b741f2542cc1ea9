/**
 * Runs a route of the inventory inside the hub for a caller the hub has already authenticated (the MCP server's
 * tools, decision 0073): through Fastify's inject(), so the route's own guard (authorization from its
 * contract, `allowed_assets`), validation, handler, serialization, error envelope and telemetry answer it,
 * exactly as they answer the same request from the network. Only authentication is not repeated: transport,
 * key and rate limits were checked on the request that carried the call.
 *
 * The caller is handed to the guard by a one-use random token in a header, honoured only on a request that
 * inject() made (a socket from the network never carries light-my-request's marker), so no request from outside
 * can borrow a principal, and the caller's credential itself is never passed on.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { fullPath, type RouteContract } from '@svc/protocol';
import { HubError } from '../platform/hub-error.js';
import type { CallSurface, Principal } from '../access/principal.js';
import type { TypedRoute } from './register-routes.js';
import type { RouteRunner, RunnerCall } from './route-runner.js';

const handOverHeader = 'x-svc-internal-call';

/** A tool's call of a route: the route runner's call, naming the route by its contract. */
type InternalCall = Omit<RunnerCall, 'route'> & { contract: RouteContract };

interface InternalAnswer {
  status: number;
  /** The route's JSON answer as it wrote it: its success or error envelope ('' for none). */
  text: string;
  /**
   * Whether the route is answered by a typed handler, so that a success is its contract's envelope written by
   * its schema (register-routes.ts): `request_id` first, then `data` (and `meta` for a list), nothing more.
   */
  typed: boolean;
  /**
   * A list page its route keeps serialized (route-runner.ts): the success envelope's members after `request_id`,
   * the same string each time the page is served from the route's cache; `text` is '' then.
   */
  members?: string;
}

/** The caller handed over with an internal request. */
interface HandedOverCaller {
  principal: Principal;
  via: CallSurface;
}

export interface InternalDispatch {
  run(call: InternalCall): Promise<InternalAnswer>;
  /** For the guard: the caller handed over with this request; null for every request from the network. */
  callerOf(request: IncomingMessage): HandedOverCaller | null;
  /**
   * For the last onSend hook: the answer of an internal call, kept for its caller as the route wrote it, and
   * nothing for inject() to copy (the payload unchanged for every other request).
   */
  keepAnswer(request: IncomingMessage, payload: unknown): unknown;
  /**
   * The app the calls run on, set once it is built (modules are built before it), with the routes a typed
   * handler answers (the others write their own replies) and the runner that runs those without inject().
   */
  attach(
    app: FastifyInstance,
    typedRoutes: ReadonlyMap<string, TypedRoute>,
    runner: RouteRunner | null,
  ): void;
}

/** `/assets/{id}` with its params, each encoded as one path segment. */
function pathOf(contract: RouteContract, params: Readonly<Record<string, string>>): string {
  return fullPath(contract).replace(/\{([a-zA-Z_]+)\}/g, (_whole, name: string) =>
    encodeURIComponent(params[name] ?? ''),
  );
}

/** Query values as the router reads them: scalars as text, arrays as repeated names. */
function queryOf(query: Readonly<Record<string, unknown>>): string {
  let text = '';
  for (const [name, value] of Object.entries(query)) {
    const values: unknown[] = Array.isArray(value) ? value : [value];
    for (const item of values) {
      if (item === undefined || item === null) continue;
      // Numbers and booleans read the same in JSON as in a query string.
      const written = typeof item === 'string' ? item : JSON.stringify(item);
      text += `${text === '' ? '?' : '&'}${encodeURIComponent(name)}=${encodeURIComponent(written)}`;
    }
  }
  return text;
}

function isInjected(request: IncomingMessage): boolean {
  return '_lightMyRequest' in request;
}

export function createInternalDispatch(): InternalDispatch {
  let app: FastifyInstance | null = null;
  let typed: ReadonlyMap<string, TypedRoute> = new Map();
  let runner: RouteRunner | null = null;
  const pending = new Map<string, HandedOverCaller>();
  // The answers of the calls in flight, by token: null until the route's onSend hands it over.
  const answers = new Map<string, string | null>();
  // Each call's token is this process's secret and a counter: never the same twice, never guessable, and one
  // random draw per process rather than per call.
  const secret = randomBytes(32).toString('base64url');
  let calls = 0;
  return {
    attach(built, typedRoutes, routeRunner) {
      app = built;
      typed = typedRoutes;
      runner = routeRunner;
    },
    callerOf(request) {
      const token = request.headers[handOverHeader];
      if (typeof token !== 'string' || !isInjected(request)) return null;
      const caller = pending.get(token) ?? null;
      pending.delete(token);
      return caller;
    },
    keepAnswer(request, payload) {
      if (typeof payload !== 'string' || answers.size === 0) return payload;
      const token = request.headers[handOverHeader];
      if (typeof token !== 'string' || !isInjected(request) || answers.get(token) !== null) return payload;
      answers.set(token, payload);
      return '';
    },
    async run(call) {
      if (!app) throw new HubError('unavailable', 'The hub is still starting.');
      // A typed route runs in the process, its guard, validation, handler and serialization as registered
      // (route-runner.ts); what that cannot run as the route would goes through the whole HTTP pipeline.
      const route = typed.get(call.contract.name);
      const direct = route && runner ? runner.run({ ...call, route }) : null;
      if (direct) return { ...(await direct), typed: true };
      calls += 1;
      const token = `${secret}.${String(calls)}`;
      pending.set(token, { principal: call.principal, via: call.via });
      answers.set(token, null);
      try {
        const response = await app.inject({
          method: call.contract.method,
          url: pathOf(call.contract, call.params) + queryOf(call.query),
          remoteAddress: call.ip,
          headers: {
            [handOverHeader]: token,
            accept: 'application/json',
            ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
        });
        // The route's text as it wrote it, handed over in the process rather than copied through inject()'s
        // emulated socket into Buffers and back (a route's page is tens of kilobytes); not parsed here either:
        // a tool call passes a success on as it is (mcp-tool-call.ts).
        const kept = answers.get(token) ?? null;
        const text = kept !== null && response.body === '' ? kept : response.body;
        return { status: response.statusCode, text, typed: route !== undefined };
      } finally {
        pending.delete(token);
        answers.delete(token);
      }
    },
  };
}
