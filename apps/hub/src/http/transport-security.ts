import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { TlsMode } from '../config/env.js';
import { isLoopbackAddress } from '../platform/ip-address.js';

export interface TransportPolicy {
  tlsMode: TlsMode;
  trustedProxies: readonly string[];
}

type Socketish = { encrypted?: boolean; remoteAddress?: string | undefined };

/**
 * What the transport rules read from a request: a Fastify request and a raw upgrade request (IncomingMessage)
 * both have it, so HTTP routes and WebSocket upgrades are judged by the same code.
 */
export interface TransportRequest {
  headers: IncomingHttpHeaders;
  socket: Socketish;
}

/**
 * The client address of a raw request, the way Fastify computes `request.ip` with the same trusted proxies
 * (proxy-addr), so a raw upgrade counts against the same per-IP limit as its HTTP requests.
 */
export function createClientIpReader(
  trustedProxies: readonly string[],
): (request: IncomingMessage) => string {
  const trust = trustedProxies.length > 0 ? proxyAddr.compile([...trustedProxies]) : () => false;
  return (request) => proxyAddr(request, trust);
}

/**
 * The scheme a request arrived with: `https` when the hub terminated TLS; what a trusted proxy's
 * X-Forwarded-Proto says when a trusted proxy sent it; `http` otherwise. `viaProxy` tells whether the peer is
 * a trusted proxy.
 */
function createSchemeReader(trustedProxies: readonly string[]) {
  const isTrustedProxy = proxyAddr.compile([...trustedProxies]);
  return (request: TransportRequest): { scheme: 'http' | 'https'; viaProxy: boolean; peer: string } => {
    const socket = request.socket;
    const peer = socket.remoteAddress ?? '';
    if (socket.encrypted === true) return { scheme: 'https', viaProxy: false, peer };
    if (trustedProxies.length > 0 && peer && isTrustedProxy(peer, 0)) {
      // The last value is the one our trusted proxy set; earlier ones may come from the client.
      const proto = request.headers['x-forwarded-proto'];
      const last = (Array.isArray(proto) ? proto.join(',') : proto)?.split(',').pop()?.trim().toLowerCase();
      return { scheme: last === 'https' ? 'https' : 'http', viaProxy: true, peer };
    }
    return { scheme: 'http', viaProxy: false, peer };
  };
}

/**
 * Whether a request arrived over TLS: the hub terminated it itself, or a trusted proxy says so. In `disabled`
 * mode a loopback client that is not a trusted proxy counts as well (a developer on the same machine).
 */
export function createTransportCheck(policy: TransportPolicy): (request: TransportRequest) => boolean {
  const schemeOf = createSchemeReader(policy.trustedProxies);
  return (request) => {
    const { scheme, viaProxy, peer } = schemeOf(request);
    if (scheme === 'https') return true;
    return !viaProxy && policy.tlsMode === 'disabled' && isLoopbackAddress(peer);
  };
}

/**
 * The same-origin check for cookie-authenticated mutations and upgrades: the Origin header must equal the
 * hub's public origin (SVC_PUBLIC_ORIGIN) or, when that is unset, the scheme and Host this request came with.
 */
export function createOriginCheck(options: {
  publicOrigin: string | null;
  trustedProxies: readonly string[];
}): (request: TransportRequest) => boolean {
  const schemeOf = createSchemeReader(options.trustedProxies);
  return (request) => {
    const origin = request.headers.origin;
    if (typeof origin !== 'string') return false;
    if (options.publicOrigin) return origin === options.publicOrigin;
    const host = request.headers.host;
    return host !== undefined && origin === `${schemeOf(request).scheme}://${host}`;
  };
}
