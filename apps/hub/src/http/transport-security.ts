import proxyAddr from 'proxy-addr';
import type { FastifyRequest } from 'fastify';
import type { TlsMode } from '../config/env.js';

export interface TransportPolicy {
  tlsMode: TlsMode;
  trustedProxies: readonly string[];
}

export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address) return false;
  return address === '::1' || address.startsWith('127.') || address.startsWith('::ffff:127.');
}

/**
 * Whether a request arrived over TLS: the hub terminated it itself, or a trusted proxy says so. In `disabled`
 * mode a loopback client that is not a trusted proxy counts as well (a developer on the same machine).
 */
export function createTransportCheck(policy: TransportPolicy): (request: FastifyRequest) => boolean {
  const isTrustedProxy = proxyAddr.compile([...policy.trustedProxies]);
  return (request) => {
    const socket = request.raw.socket as { encrypted?: boolean; remoteAddress?: string };
    if (socket.encrypted === true) return true;
    const peer = socket.remoteAddress ?? '';
    if (policy.trustedProxies.length > 0 && peer && isTrustedProxy(peer, 0)) {
      const proto = request.headers['x-forwarded-proto'];
      const first = (Array.isArray(proto) ? proto[0] : proto)?.split(',')[0]?.trim().toLowerCase();
      return first === 'https';
    }
    return policy.tlsMode === 'disabled' && isLoopbackAddress(peer);
  };
}
