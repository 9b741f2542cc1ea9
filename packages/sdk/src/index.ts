/**
 * @svc/sdk: a typed client for the hub's REST interface, built from the same route contracts the hub serves.
 * Works with any fetch (browsers, Node, or a test transport over app.inject).
 */
import type { Static, TSchema } from 'typebox';
import {
  errorCatalog,
  fullPath,
  routes,
  type ErrorCode,
  type ErrorEnvelope,
  type PageMeta,
  type RouteContract,
  type RouteName,
  type Routes,
} from '@svc/protocol';

type StaticOf<S> = S extends TSchema ? Static<S> : undefined;
type Optionalize<T> = undefined extends T ? { [K in keyof T]?: T[K] } | undefined : T;

export type CallInput<R extends RouteContract> = {
  params?: StaticOf<R['params']>;
  query?: Optionalize<StaticOf<R['query']>>;
  body?: StaticOf<R['body']>;
};

export type CallOutput<R extends RouteContract> = R extends { raw: true }
  ? unknown
  : R extends { response: infer S extends TSchema; list: true }
    ? { data: Static<S>[]; meta: PageMeta }
    : R extends { response: infer S extends TSchema }
      ? { data: Static<S> }
      : { data: unknown };

export type FetchLike = (
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
) => Promise<{
  status: number;
  text(): Promise<string>;
}>;

export interface ClientOptions {
  baseUrl: string;
  apiKey?: string;
  fetch?: FetchLike;
}

/** A non-2xx answer, carrying the hub's error envelope. */
export class SvcApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorEnvelope,
  ) {
    super(`${status} ${body.error}: ${body.message}`);
    this.name = 'SvcApiError';
  }
}

/** One code per status, the least specific, for answers that did not come from the hub. */
const genericErrorCodes: readonly ErrorCode[] = [
  'validation',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'internal_error',
  'not_implemented',
  'upstream_error',
  'unavailable',
];

/**
 * The hub's error envelope from an error answer; when something in between (a proxy, a load balancer) answered
 * with text that is not one, an envelope is made from the status so callers always get an SvcApiError.
 */
function errorEnvelopeOf(status: number, text: string): ErrorEnvelope {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed && typeof parsed === 'object' && typeof (parsed as { error?: unknown }).error === 'string') {
      return parsed as ErrorEnvelope;
    }
  } catch {
    // not JSON: fall through
  }
  const code = genericErrorCodes.find((c) => errorCatalog[c].status === status) ?? 'internal_error';
  return { request_id: '', error: code, message: text.slice(0, 200) || errorCatalog[code].message, status };
}

export function buildUrl(
  route: RouteContract,
  params: Record<string, unknown> = {},
  query: Record<string, unknown> = {},
): string {
  const path = fullPath(route).replace(/\{([a-zA-Z_]+)\}/g, (_m, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name}`);
    if (typeof value !== 'string' && typeof value !== 'number')
      throw new TypeError(`path parameter ${name} must be text`);
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? (v as unknown[]) : [v]) {
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean')
        search.append(k, String(item));
    }
  }
  const qs = search.toString();
  return qs ? `${path}?${qs}` : path;
}

export function createClient(options: ClientOptions) {
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const base = options.baseUrl.replace(/\/$/, '');
  return {
    async call<K extends RouteName>(
      name: K,
      input: CallInput<Routes[K]> = {},
    ): Promise<CallOutput<Routes[K]>> {
      const route: RouteContract = routes[name];
      const url = base + buildUrl(route, input.params ?? {}, input.query ?? {});
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
      let body: string | undefined;
      if (input.body !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(input.body);
      }
      const response = await doFetch(url, {
        method: route.method,
        headers,
        ...(body !== undefined ? { body } : {}),
      });
      const text = await response.text();
      if (response.status >= 400)
        throw new SvcApiError(response.status, errorEnvelopeOf(response.status, text));
      const parsed: unknown = text ? JSON.parse(text) : {};
      return parsed as CallOutput<Routes[K]>;
    },
  };
}

export type SvcClient = ReturnType<typeof createClient>;
