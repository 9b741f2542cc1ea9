import type { TSchema } from 'typebox';
import type { Scope } from './scopes.js';

export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof httpMethods)[number];

/** Which HTTP surface a route belongs to (ARCHITECTURE.md: one file per surface in the hub). */
export type Surface = 'v2' | 'console' | 'transport' | 'root';

export const surfaceBase: Record<Surface, string> = {
  v2: '/api/v2',
  console: '/api',
  transport: '/api/v1',
  root: '',
};

/**
 * How a route is guarded:
 * - `public`: no credential;
 * - `scope`: a key must hold `scope`; sessions pass on role alone;
 * - `authenticated`: any valid credential;
 * - `admin`: role admin or owner (and, for keys, nothing else: admin areas are not scoped).
 */
export type RouteAuth = 'public' | 'scope' | 'authenticated' | 'admin';

/** Where the asset a route acts on is named, so it can be checked against `allowed_assets` before anything runs. */
export interface AssetRef {
  param: string;
  /** `asset`: the param is an asset id; `compound`: `<asset id>:<engine id>` (containers, stacks). */
  form: 'asset' | 'compound';
}

export interface RouteContract {
  /** `<area>.<action>`: the area is the hub module that answers it (and the file `api/<area>.ts`). */
  name: string;
  /**
   * The OpenAPI operationId when it is not the name: a contract renamed into its area keeps the id it was
   * published with, so clients generated from the document keep their method names.
   */
  operationId?: string;
  surface: Surface;
  method: HttpMethod;
  /** OpenAPI-style path relative to the surface base: `/assets/{id}`. */
  path: string;
  auth: RouteAuth;
  scope?: Scope;
  summary: string;
  asset?: AssetRef;
  /** Keys restricted by `allowed_assets` may not use this route at all (it is not about one asset). */
  unrestrictedOnly?: boolean;
  /** A caller acting on their own account (sign-out, own 2FA): allowed to viewers too. */
  selfService?: boolean;
  /**
   * A POST that only carries calls of other routes, each authorized as that route (the MCP endpoint): allowed
   * to viewers too, whose every carried call that changes something is refused by its own route.
   */
  carriesCalls?: boolean;
  /**
   * What it answers may hold secrets (file contents, logs, process and cron command lines): the viewer role
   * never reads it (ARCHITECTURE.md security rule 10; docs/decisions/0005-hardening.md).
   */
  readsSecrets?: boolean;
  /** Open to a session that must still choose a new password (sign-out, who am I, the change itself). */
  beforePasswordChange?: boolean;
  /** Only for console sessions, not API keys (a key has no password or second factor). */
  sessionOnly?: boolean;
  params?: TSchema;
  /**
   * Params that match only these values (alternatives, no parentheses): the router then leaves every other
   * value to a static sibling or to 404/405, so `/settings/{domain}` does not shadow `/settings/tls`.
   */
  paramPatterns?: Readonly<Record<string, string>>;
  query?: TSchema;
  body?: TSchema;
  /** Schema of `data` in the success envelope; absent for raw routes and for the planned ones. */
  response?: TSchema;
  list?: boolean;
  successStatus?: 200 | 201 | 202 | 204;
  /** Routes that do not use the JSON envelope (openapi document, CA certificate, event stream). */
  raw?: boolean;
  /**
   * A WebSocket endpoint: the hub's upgrade path finds it by path and runs the same authentication and
   * authorization as for any route before the handshake; a plain request gets what the HTTP route answers.
   */
  upgrade?: boolean;
  /** A second success form chosen by `Accept`: one JSON document per line, each matching `line`. */
  stream?: { mediaType: 'application/x-ndjson'; line: TSchema };
  /** Longer prose for the OpenAPI document, when the summary cannot say enough. */
  description?: string;
  /**
   * Honours an `Idempotency-Key` header: the first request with a key runs and its answer is kept for
   * `idempotencyLimits.ttlHours`; a repeat by the same credential gets that answer and runs nothing
   * (docs/decisions/0032-mobile-offline-queue-and-push.md).
   */
  idempotent?: boolean;
  /** A body limit above the hub's default (file uploads). */
  bodyLimit?: number;
  /** Which issue builds it, for routes that still answer 501 (the contracts of `api/planned.ts`). */
  plannedIn?: string;
}

export function fullPath(route: Pick<RouteContract, 'surface' | 'path'>): string {
  return surfaceBase[route.surface] + route.path;
}

/** `/assets/{id}` → `/assets/:id` for the router. */
export function routerPath(route: Pick<RouteContract, 'surface' | 'path' | 'paramPatterns'>): string {
  return fullPath(route).replace(/\{([a-zA-Z_]+)\}/g, (_whole, name: string) => {
    const pattern = route.paramPatterns?.[name];
    return pattern === undefined ? `:${name}` : `:${name}(${pattern})`;
  });
}

export function defineRoute<const T extends RouteContract>(route: T): T {
  return route;
}

/** The `Idempotency-Key` header: its form and how long an answer is kept for replays. */
export const idempotencyLimits = {
  header: 'idempotency-key',
  pattern: '^[A-Za-z0-9_.:-]{8,128}$',
  ttlHours: 24,
} as const;
