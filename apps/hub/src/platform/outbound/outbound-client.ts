/**
 * The one way the hub opens a connection out (webhooks, connectors, discovery): HTTP on undici and WebSocket
 * on ws, both dialled through the guarded lookup. Each hop of a redirect is checked again, as a new request.
 * The policy is held here and swapped with setPolicy, so the runtime settings apply it without a restart.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { LookupFunction } from 'node:net';
import { TLSSocket } from 'node:tls';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { WebSocket, type ClientOptions } from 'ws';
import { ipLiteralOf, isHostAllowed, type OutboundPolicy } from './address-policy.js';
import {
  assertAddressAllowed,
  createGuardedLookup,
  resolveAllowed,
  systemResolver,
  type Resolver,
} from './guarded-lookup.js';
import { findOutboundRefused, OutboundRefused } from './outbound-refused.js';

export interface OutboundClientOptions {
  policy: OutboundPolicy;
  resolver?: Resolver;
  /** Redirects followed before `too_many_redirects`; default 5. */
  maxRedirects?: number;
  connectTimeoutMs?: number;
  /** Time to the response headers, and the longest silence inside a body. */
  responseTimeoutMs?: number;
  /** Trusted CA certificates (PEM) instead of the system's, for an upstream with its own CA. */
  ca?: string;
  /** How the upstream's certificate is judged, when not by the CA pool (per connector). */
  tls?: OutboundTls;
}

/**
 * Certificate checks other than "a trusted CA signed it for this name": a pinned leaf certificate (its SHA-256
 * fingerprint, checked before any byte of the request is sent), or none at all (an explicit, visible choice).
 */
export type OutboundTls = { verify: 'fingerprint'; sha256: string } | { verify: 'none' };

/** `AB:CD:…` or `abcd…` → lowercase hex without separators. */
export function normalizeFingerprint(text: string): string {
  return text.replace(/[:\s]/g, '').toLowerCase();
}

class CertificateMismatch extends Error {
  constructor(host: string) {
    super(`${host}: the certificate does not match the pinned SHA-256 fingerprint`);
    this.name = 'CertificateMismatch';
  }
}

function leafFingerprint(socket: TLSSocket): string | null {
  const cert = socket.getPeerCertificate();
  return Object.keys(cert).length === 0 ? null : createHash('sha256').update(cert.raw).digest('hex');
}

export interface OutboundRequest {
  method?: Dispatcher.HttpMethod;
  headers?: Record<string, string>;
  body?: string | Uint8Array | null;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** Where the answer came from, after redirects. */
  url: string;
  body: Dispatcher.ResponseData['body'];
  /** The reason phrase (some upstreams put their only error text there). */
  statusText: string;
}

export interface OutboundWebSocketOptions {
  protocols?: string[];
  headers?: Record<string, string>;
  maxPayload?: number;
  handshakeTimeoutMs?: number;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin are not handed to another one a redirect names.
const originBoundHeaders = ['authorization', 'cookie', 'proxy-authorization'];

export class OutboundClient {
  private currentPolicy: OutboundPolicy;
  private agent: Agent;
  private readonly lookup: LookupFunction;
  private readonly resolver: Resolver;
  private readonly maxRedirects: number;
  private readonly connectTimeoutMs: number;
  private readonly responseTimeoutMs: number;
  private readonly ca: string | undefined;
  private readonly tls: OutboundTls | undefined;

  constructor(options: OutboundClientOptions) {
    this.currentPolicy = options.policy;
    this.resolver = options.resolver ?? systemResolver;
    this.lookup = createGuardedLookup(() => this.currentPolicy, this.resolver);
    this.maxRedirects = options.maxRedirects ?? 5;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    this.responseTimeoutMs = options.responseTimeoutMs ?? 30_000;
    this.ca = options.ca;
    this.tls = options.tls;
    this.agent = this.createAgent();
  }

  get policy(): OutboundPolicy {
    return this.currentPolicy;
  }

  /**
   * Applies to the next connection at once. Pooled keep-alive sockets were judged under the old policy, so the
   * pool is replaced: requests in flight finish on the old one, new ones dial (and are judged) again.
   */
  setPolicy(policy: OutboundPolicy): void {
    this.currentPolicy = policy;
    const previous = this.agent;
    this.agent = this.createAgent();
    void previous.close();
  }

  /**
   * Judges a target as a request to it would be (scheme, allowlist, every address its name resolves to)
   * without connecting: for a URL stored now and dialled later, such as a webhook's. OutboundRefused if not.
   */
  async vet(target: string | URL): Promise<void> {
    const url = new URL(target);
    this.checkTarget(url, 'https:', 'http:');
    await resolveAllowed(url.hostname, this.currentPolicy, this.resolver);
  }

  /**
   * The address a connection to `host` would use, judged by the policy: for a client other than HTTP (SMTP)
   * that then dials the address itself. OutboundRefused if none is allowed.
   */
  async resolve(host: string): Promise<string> {
    if (!isHostAllowed(host, this.currentPolicy.hostAllowlist)) {
      throw new OutboundRefused('host_not_allowed', host, `${host} is not in the outbound host allowlist`);
    }
    const [first] = await resolveAllowed(host, this.currentPolicy, this.resolver);
    if (!first) throw new OutboundRefused('dns_failed', host, `${host}: name has no address`);
    return first.address;
  }

  async request(target: string | URL, init: OutboundRequest = {}): Promise<OutboundResponse> {
    let url = new URL(target);
    let method = init.method ?? 'GET';
    let body = init.body ?? null;
    let headers = { ...init.headers };
    for (let redirects = 0; ; redirects += 1) {
      this.checkTarget(url, 'https:', 'http:');
      const response = await this.send(url, { method, headers, body, signal: init.signal ?? null });
      const location = response.headers.location;
      if (!redirectStatuses.has(response.statusCode) || typeof location !== 'string') {
        return {
          status: response.statusCode,
          statusText: response.statusText,
          headers: response.headers,
          url: url.href,
          body: response.body,
        };
      }
      await response.body.dump();
      if (redirects >= this.maxRedirects) {
        throw new OutboundRefused(
          'too_many_redirects',
          url.hostname,
          `more than ${String(this.maxRedirects)} redirects`,
        );
      }
      const next = new URL(location, url);
      if (
        response.statusCode === 303 ||
        (response.statusCode !== 307 && response.statusCode !== 308 && method === 'POST')
      ) {
        method = 'GET';
        body = null;
        headers = withoutHeaders(headers, (name) => name.startsWith('content-'));
      }
      if (next.origin !== url.origin)
        headers = withoutHeaders(headers, (name) => originBoundHeaders.includes(name));
      url = next;
    }
  }

  /** A WebSocket that is open, or OutboundRefused / the connection error. Redirects are not followed. */
  async webSocket(target: string | URL, options: OutboundWebSocketOptions = {}): Promise<WebSocket> {
    const url = new URL(target);
    this.checkTarget(url, 'wss:', 'ws:');
    // ws hands its options to http(s).request, which passes `lookup` to the socket; @types/ws omits the field.
    const clientOptions: ClientOptions & { lookup: LookupFunction } = {
      lookup: this.lookup,
      followRedirects: false,
      handshakeTimeout: options.handshakeTimeoutMs ?? this.connectTimeoutMs,
      maxPayload: options.maxPayload ?? 16 * 1024 * 1024,
      headers: options.headers ?? {},
      ...(this.ca ? { ca: this.ca } : {}),
      ...(this.tls ? { rejectUnauthorized: false } : {}),
    };
    const socket = new WebSocket(url, options.protocols ?? [], clientOptions);
    const pinned = this.tls?.verify === 'fingerprint' ? normalizeFingerprint(this.tls.sha256) : null;
    return new Promise((resolve, reject) => {
      const fail = (error: Error): void => {
        socket.removeAllListeners('open');
        reject(findOutboundRefused(error) ?? error);
      };
      if (pinned !== null) {
        // Checked on the upgrade answer, before the socket opens and before any message is sent.
        socket.once('upgrade', (response) => {
          const { socket: raw } = response;
          if (!(raw instanceof TLSSocket) || leafFingerprint(raw) !== pinned) {
            socket.removeAllListeners('open');
            socket.terminate();
            reject(new CertificateMismatch(url.hostname));
          }
        });
      }
      socket.once('open', () => {
        socket.removeListener('error', fail);
        resolve(socket);
      });
      socket.once('error', fail);
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private createAgent(): Agent {
    // The socket is opened to the host name with this lookup, so TLS verifies and sends SNI for the name.
    const connect = {
      lookup: this.lookup,
      timeout: this.connectTimeoutMs,
      ...(this.ca ? { ca: this.ca } : {}),
      ...(this.tls ? { rejectUnauthorized: false, maxCachedSessions: 0 } : {}),
    };
    return new Agent({
      connect: this.tls?.verify === 'fingerprint' ? pinnedConnector(connect, this.tls.sha256) : connect,
      headersTimeout: this.responseTimeoutMs,
      bodyTimeout: this.responseTimeoutMs,
    });
  }

  /** Scheme, host allowlist and IP literal, all before any lookup or connection. */
  private checkTarget(url: URL, secure: string, insecure: string): void {
    const host = url.hostname;
    if (url.protocol === insecure) {
      if (!this.currentPolicy.allowInsecure) {
        throw new OutboundRefused(
          'insecure_transport',
          host,
          `${url.protocol}// needs the insecure-transport opt-in`,
        );
      }
    } else if (url.protocol !== secure) {
      throw new OutboundRefused(
        'insecure_transport',
        host,
        `${url.protocol}// is not an outbound scheme here`,
      );
    }
    if (!isHostAllowed(host, this.currentPolicy.hostAllowlist)) {
      throw new OutboundRefused('host_not_allowed', host, `${host} is not in the outbound host allowlist`);
    }
    // The dialer skips its lookup for a literal, so a literal is judged here.
    const literal = ipLiteralOf(host);
    if (literal !== null) assertAddressAllowed(host, literal, this.currentPolicy);
  }

  private async send(
    url: URL,
    options: Omit<Dispatcher.RequestOptions, 'origin' | 'path'>,
  ): Promise<Dispatcher.ResponseData> {
    try {
      return await this.agent.request({
        ...options,
        origin: url.origin,
        path: `${url.pathname}${url.search}`,
      });
    } catch (error) {
      throw findOutboundRefused(error) ?? error;
    }
  }
}

/** A connector that hands undici the socket only when the leaf certificate is the pinned one. */
function pinnedConnector(options: buildConnector.BuildOptions, sha256: string): buildConnector.connector {
  const base = buildConnector(options);
  const pinned = normalizeFingerprint(sha256);
  return (connectOptions, callback) => {
    base(connectOptions, (error, socket) => {
      if (error !== null) {
        callback(error, null);
        return;
      }
      if (!(socket instanceof TLSSocket) || leafFingerprint(socket) !== pinned) {
        socket.destroy();
        callback(new CertificateMismatch(connectOptions.hostname), null);
        return;
      }
      callback(null, socket);
    });
  };
}

function withoutHeaders(
  headers: Record<string, string>,
  drop: (lowerName: string) => boolean,
): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !drop(name.toLowerCase())));
}

export function createOutboundClient(options: OutboundClientOptions): OutboundClient {
  return new OutboundClient(options);
}
