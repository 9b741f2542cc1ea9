/**
 * The HTTP seam every connector client uses: requests through the egress-guarded client (its policy and the
 * connector's TLS), a deadline per request, bounded retries for idempotent reads only, a cap on answer size,
 * and every failure as an UpstreamError with the upstream's reason. Kinds add their auth header, envelope and
 * error text (`describeError`); they never open connections themselves.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { Compile } from 'typebox/compile';
import type { Static, TSchema } from 'typebox';
import type { OutboundClient } from '../../platform/outbound/outbound-client.js';
import { findOutboundRefused } from '../../platform/outbound/outbound-refused.js';
import { UpstreamError } from './upstream-error.js';

/** @public */
export interface UpstreamAnswer {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface UpstreamHttpOptions {
  /** The live outbound client (its policy follows the runtime setting). */
  client: () => OutboundClient;
  /** Scheme, host, port and any path prefix; request paths are appended. */
  baseUrl: string;
  /** Sent with every request (the kind's auth header). */
  headers?: Record<string, string>;
  /** The whole request, answer body included. Default 10 s. */
  timeoutMs?: number;
  /** Further tries of a GET after a transient failure. Default 2. */
  retries?: number;
  retryDelayMs?: number;
  /** Larger answers are refused as malformed. Default 16 MiB. */
  maxBodyBytes?: number;
  /** The reason of an error answer, in the upstream's own words (its status line, body or message field). */
  describeError?: (answer: UpstreamAnswer) => string;
}

/** @public */
export interface UpstreamRequest {
  query?: Record<string, string | number | undefined>;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  headers?: Record<string, string>;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface UpstreamHttp {
  /** One request, its answer whatever the status; transport failures throw UpstreamError. Never retried. */
  send(method: Method, path: string, request?: UpstreamRequest): Promise<UpstreamAnswer>;
  /** A GET (retried when transient), an error status thrown as UpstreamError, the body parsed as JSON. */
  getJson(path: string, query?: UpstreamRequest['query']): Promise<unknown>;
  /** A change (sent once), an error status thrown as UpstreamError, the body parsed as JSON (null if empty). */
  sendJson(method: Exclude<Method, 'GET'>, path: string, request?: UpstreamRequest): Promise<unknown>;
}

const defaults = { timeoutMs: 10_000, retries: 2, retryDelayMs: 200, maxBodyBytes: 16 * 1024 * 1024 };

const tlsCodes = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_SIGNATURE_FAILURE',
]);

/**
 * Status and reason phrase, plus a `message` the body may carry: what most upstreams' errors say.
 * @public for the kinds' `describeError`
 */
export function defaultErrorReason(answer: UpstreamAnswer): string {
  const line = `HTTP ${String(answer.status)}${answer.statusText ? ` ${answer.statusText}` : ''}`;
  const message = messageOf(answer.text);
  return message === null ? line : `${line}: ${message}`;
}

/** `message` of a JSON body, or a short text body itself; null for an empty or unreadable one. */
/** @public */
export function messageOf(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (typeof parsed === 'object' && parsed !== null && 'message' in parsed) {
      const { message } = parsed;
      return typeof message === 'string' && message.trim() !== '' ? message.trim() : null;
    }
    return null;
  } catch {
    return trimmed.startsWith('<') ? null : trimmed.slice(0, 200);
  }
}

function errorChain(error: unknown): Error[] {
  const chain: Error[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < 6) {
    chain.push(current);
    current = current.cause;
  }
  return chain;
}

/** A thrown transport error as an UpstreamError (the egress guard's refusal, a timeout, TLS, the network). */
/** @public for clients that speak WebSocket */
export function transportFailure(error: unknown, host: string): UpstreamError {
  if (error instanceof UpstreamError) return error;
  const refused = findOutboundRefused(error);
  if (refused) return new UpstreamError('refused', `refused by the egress guard: ${refused.message}`);
  const chain = errorChain(error);
  for (const link of chain) {
    const code = (link as { code?: unknown }).code;
    if (
      link.name === 'TimeoutError' ||
      code === 'UND_ERR_CONNECT_TIMEOUT' ||
      code === 'UND_ERR_HEADERS_TIMEOUT'
    )
      return new UpstreamError('timeout', `${host} did not answer in time`);
    if (link.name === 'CertificateMismatch') return new UpstreamError('tls', link.message);
    if (typeof code === 'string' && tlsCodes.has(code))
      return new UpstreamError('tls', `${host}: certificate not trusted (${code})`);
  }
  const code = chain.map((link) => (link as { code?: unknown }).code).find((c) => typeof c === 'string');
  return new UpstreamError('network', `${host}: ${typeof code === 'string' ? code : 'connection failed'}`);
}

async function readCapped(body: AsyncIterable<Uint8Array>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) throw new UpstreamError('malformed', `answer larger than ${String(limit)} bytes`);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(answer: UpstreamAnswer): unknown {
  if (answer.text.trim() === '') return null;
  try {
    return JSON.parse(answer.text) as unknown;
  } catch {
    throw new UpstreamError('malformed', `answer is not JSON (HTTP ${String(answer.status)})`, answer.status);
  }
}

export function createUpstreamHttp(options: UpstreamHttpOptions): UpstreamHttp {
  const settings = { ...defaults, ...options };
  const base = new URL(options.baseUrl);
  const prefix = base.pathname.replace(/\/+$/, '');
  const describe = options.describeError ?? defaultErrorReason;

  function urlOf(path: string, query: UpstreamRequest['query']): URL {
    const url = new URL(base.origin);
    url.pathname = `${prefix}${path}`;
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  async function send(method: Method, path: string, request: UpstreamRequest = {}): Promise<UpstreamAnswer> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...options.headers,
      ...request.headers,
    };
    let body: string | null = null;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.form !== undefined) {
      body = new URLSearchParams(request.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const signal = AbortSignal.timeout(settings.timeoutMs);
    try {
      const response = await options
        .client()
        .request(urlOf(path, request.query), { method, headers, body, signal });
      const text = await readCapped(response.body, settings.maxBodyBytes);
      return { status: response.status, statusText: response.statusText, headers: response.headers, text };
    } catch (error) {
      throw transportFailure(
        signal.aborted ? Object.assign(new Error('timeout'), { name: 'TimeoutError' }) : error,
        base.hostname,
      );
    }
  }

  function checked(answer: UpstreamAnswer): unknown {
    if (answer.status >= 200 && answer.status < 300) return parseJson(answer);
    throw new UpstreamError('http', describe(answer), answer.status);
  }

  return {
    send,
    async getJson(path, query) {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return checked(await send('GET', path, { query }));
        } catch (error) {
          const failure = transportFailure(error, base.hostname);
          if (!failure.isTransient || attempt >= settings.retries) throw failure;
          await sleep(settings.retryDelayMs * 2 ** attempt);
        }
      }
    },
    async sendJson(method, path, request) {
      return checked(await send(method, path, request));
    },
  };
}

interface Validator {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<{ instancePath: string; message: string }>;
}
const validators = new WeakMap<TSchema, Validator>();

/**
 * The upstream's answer checked against the shape its documentation gives (never trusted): the value, or an
 * UpstreamError naming the first mismatch. Schemas describe only the fields the hub reads.
 */
export function parseUpstream<T extends TSchema>(schema: T, value: unknown, what: string): Static<T> {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema);
    validators.set(schema, validator);
  }
  if (validator.Check(value)) return value as Static<T>;
  for (const problem of validator.Errors(value)) {
    throw new UpstreamError(
      'malformed',
      `unexpected ${what} answer at ${problem.instancePath || '/'}: ${problem.message}`,
    );
  }
  throw new UpstreamError('malformed', `unexpected ${what} answer`);
}
