/**
 * The SDK's client without the route inventory: it finds a route's method and path through the lookup it is
 * given, so a bundle that imports only this module (the console's sign-in page) does not carry every contract
 * and its schemas. `@svc/sdk` (index.ts) is this client over `routes`, what every other caller uses.
 */
import type { Static, TSchema } from 'typebox';
// The two runtime imports by their own paths: the package's index would bring every contract along.
import { fullPath } from '@svc/protocol/contract';
import { errorCatalog } from '@svc/protocol/errors';
import type {
  ErrorCode,
  ErrorEnvelope,
  ExecManyRequest,
  ExecResult,
  ExecStreamLine,
  ExecSummary,
  FieldProblem,
  PageMeta,
  RouteContract,
  RouteName,
  Routes,
} from '@svc/protocol';

type StaticOf<S> = S extends TSchema ? Static<S> : undefined;
type Optionalize<T> = undefined extends T ? { [K in keyof T]?: T[K] } | undefined : T;

export type CallInput<R extends RouteContract> = {
  params?: StaticOf<R['params']>;
  query?: Optionalize<StaticOf<R['query']>>;
  body?: StaticOf<R['body']>;
  /** Sent as `Idempotency-Key` (routes marked `idempotent`): a repeat answers the first call, runs nothing. */
  idempotencyKey?: string;
};

export type CallOutput<R extends RouteContract> = R extends { raw: true }
  ? unknown
  : R extends { response: infer S extends TSchema; list: true }
    ? { data: Static<S>[]; meta: PageMeta }
    : R extends { response: infer S extends TSchema }
      ? { data: Static<S> }
      : { data: unknown };

export interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** Set in session mode (no key): the browser sends the hub's session cookie, same origin only. */
  credentials?: 'same-origin';
  /** Ends the request (and a stream being read) when aborted. */
  signal?: AbortSignal;
}

export interface FetchResponse {
  status: number;
  text(): Promise<string>;
  /** For downloads: a real fetch has both; a test transport may leave them out. */
  arrayBuffer?(): Promise<ArrayBuffer>;
  headers?: { get(name: string): string | null };
  /** For streams: a real fetch reads lines as they arrive; without it the whole text is read at the end. */
  body?: ReadableStream<Uint8Array> | null;
}

export type FetchLike = (url: string, init: FetchInit) => Promise<FetchResponse>;

export interface ClientOptions {
  /** The hub's origin (`https://hub:8443`); `''` for the console, which is served by the hub itself. */
  baseUrl: string;
  /** A bearer key; without one the client is in session mode (the console's cookie, same origin). */
  apiKey?: string;
  fetch?: FetchLike;
  /** Called with every 401 before it is thrown: the console goes back to sign-in. */
  onUnauthorized?: (error: SvcApiError) => void;
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

  /** The hub's error code (`validation`, `read_only_role`, `asset_offline`…). */
  get code(): ErrorCode {
    return this.body.error;
  }

  /** The hub's message, as the hub wrote it: what a user interface shows. */
  get hubMessage(): string {
    return this.body.message;
  }

  /** The field problems of a `validation` error; empty otherwise. */
  get details(): readonly FieldProblem[] {
    return this.body.details ?? [];
  }
}

/** A file as the hub sent it (GET /assets/{id}/files/read and other raw answers). */
export interface Download {
  bytes: Uint8Array;
  contentType: string | null;
  /** From Content-Disposition, when the hub named it. */
  filename: string | null;
}

/** Bytes as base64 without Node's Buffer, for JSON bodies that carry a file (files.write). */
export function encodeBase64(bytes: Uint8Array): string {
  let binary = '';
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}

/** The file name of a Content-Disposition header: the RFC 5987 `filename*` first, then `filename`. */
export function dispositionFilename(header: string | null): string | null {
  if (!header) return null;
  const extended = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (extended?.[1]) {
    try {
      return decodeURIComponent(extended[1]);
    } catch {
      // fall through to the plain name
    }
  }
  const plain = /filename="([^"]*)"/i.exec(header) ?? /filename=([^;]+)/i.exec(header);
  return plain?.[1]?.trim() ?? null;
}

/** Options of a streamed fan-out (`execStream`). */
export interface ExecStreamOptions {
  /** Called with each target's result as the hub writes it, in the order they finish. */
  onResult: (result: ExecResult) => void;
  /** Stops reading (the commands already sent run to their end on the agents). */
  signal?: AbortSignal;
}

/** A fan-out stream that ended without its summary line: the connection or the hub broke off. */
export class ExecStreamBrokenError extends Error {
  constructor(readonly received: number) {
    super(
      `the command stream broke off after ${received} result${received === 1 ? '' : 's'}, before its summary`,
    );
    this.name = 'ExecStreamBrokenError';
  }
}

/** Text chunks to whole lines: what is left after the last newline waits for the next chunk. */
async function readLines(response: FetchResponse, onLine: (line: string) => void): Promise<void> {
  const emit = (text: string) => {
    const trimmed = text.trim();
    if (trimmed !== '') onLine(trimmed);
  };
  if (!response.body) {
    for (const line of (await response.text()).split('\n')) emit(line);
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending += decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) emit(line);
    }
    emit(pending + decoder.decode());
  } finally {
    reader.releaseLock();
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
  route: RouteTarget,
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

/** What a call needs of its contract: the method and where it is served. */
export type RouteTarget = Pick<RouteContract, 'method' | 'surface' | 'path'>;

/** Finds a contract by name; a promise when the table is loaded on demand (the console's code split). */
export type RouteLookup = (name: RouteName) => RouteTarget | Promise<RouteTarget>;

export function createRouteClient(options: ClientOptions, routeOf: RouteLookup) {
  const doFetch: FetchLike = options.fetch ?? ((url, init) => fetch(url, init));
  const base = options.baseUrl.replace(/\/$/, '');

  /** What a call sends, whatever its route: the typed methods below narrow it per route. */
  interface AnyInput {
    params?: Record<string, unknown>;
    query?: Record<string, unknown>;
    body?: unknown;
    idempotencyKey?: string;
  }

  async function send(
    name: RouteName,
    input: AnyInput,
    extra: { accept?: string; signal?: AbortSignal } = {},
  ): Promise<FetchResponse> {
    const found = routeOf(name);
    const route = found instanceof Promise ? await found : found;
    const url = base + buildUrl(route, input.params ?? {}, input.query ?? {});
    const headers: Record<string, string> = { accept: extra.accept ?? 'application/json' };
    if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
    if (input.idempotencyKey !== undefined) headers['idempotency-key'] = input.idempotencyKey;
    let body: string | undefined;
    if (input.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(input.body);
    }
    const response = await doFetch(url, {
      method: route.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      ...(options.apiKey ? {} : { credentials: 'same-origin' as const }),
      ...(extra.signal ? { signal: extra.signal } : {}),
    });
    if (response.status >= 400) {
      const error = new SvcApiError(response.status, errorEnvelopeOf(response.status, await response.text()));
      if (error.status === 401) options.onUnauthorized?.(error);
      throw error;
    }
    return response;
  }

  return {
    async call<K extends RouteName>(
      name: K,
      input: CallInput<Routes[K]> = {},
    ): Promise<CallOutput<Routes[K]>> {
      const response = await send(name, input);
      const text = await response.text();
      const parsed: unknown = text ? JSON.parse(text) : {};
      return parsed as CallOutput<Routes[K]>;
    },

    /** A raw answer as bytes (a file download), with its type and name. */
    async download<K extends RouteName>(name: K, input: CallInput<Routes[K]> = {}): Promise<Download> {
      const response = await send(name, input);
      const bytes = response.arrayBuffer
        ? new Uint8Array(await response.arrayBuffer())
        : new TextEncoder().encode(await response.text());
      return {
        bytes,
        contentType: response.headers?.get('content-type') ?? null,
        filename: dispositionFilename(response.headers?.get('content-disposition') ?? null),
      };
    },

    /**
     * A command on many assets (`POST /exec`) as NDJSON: each target's result is handed to `onResult` as it
     * arrives; resolves with the summary line. A refusal (validation, 403, 404) comes before anything runs
     * and throws SvcApiError; a stream that ends without its summary throws ExecStreamBrokenError.
     */
    async execStream(body: ExecManyRequest, streamOptions: ExecStreamOptions): Promise<ExecSummary> {
      const response = await send(
        'exec.many',
        { body },
        {
          accept: 'application/x-ndjson',
          ...(streamOptions.signal ? { signal: streamOptions.signal } : {}),
        },
      );
      const seen: { summary: ExecSummary | null; results: number } = { summary: null, results: 0 };
      await readLines(response, (text) => {
        let line: ExecStreamLine;
        try {
          line = JSON.parse(text) as ExecStreamLine;
        } catch {
          // The hub writes whole lines: a piece of one is where the stream broke off.
          throw new ExecStreamBrokenError(seen.results);
        }
        if ('summary' in line) {
          seen.summary = line.summary;
          return;
        }
        seen.results += 1;
        streamOptions.onResult(line);
      });
      if (seen.summary === null) throw new ExecStreamBrokenError(seen.results);
      return seen.summary;
    },
  };
}
