/**
 * Who is at the other end of an agent channel upgrade: the asset whose credential (`Authorization: Bearer
 * sva_…`) the request carries. The credential is the identity — an id the agent states is never read. The
 * upgrade must arrive over TLS (the hub's own, or a trusted proxy's with `X-Forwarded-Proto: https`), or from
 * loopback when TLS is disabled, exactly as API keys must (transport-security.ts). Failed credentials are
 * logged through the refusal log and limited per address (channel-failures.ts).
 */
import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { Kysely } from 'kysely';
import { agentCredentialPattern } from '@svc/protocol';
import type { TlsMode } from '../config/env.js';
import { isLoopbackAddress } from '../http/transport-security.js';
import { constantTimeEqual, sha256Hex } from '../platform/crypto.js';
import type { Database } from '../platform/db/schema.js';
import { HubError } from '../platform/hub-error.js';
import { silentLogger, type Logger } from '../platform/logger.js';
import { createRefusalLog, type RefusalLog } from '../platform/refusal-log.js';
import { findAgentCredentialByHash } from './agent-credentials.repository.js';
import { createChannelFailureLimiter, type ChannelFailureLimiter } from './channel-failures.js';

export interface ChannelPeer {
  assetId: string;
  /** The client's address: the socket peer, or what a trusted proxy forwarded. */
  remoteAddress: string | null;
}

export interface UpgradeTransportPolicy {
  tlsMode: TlsMode;
  trustedProxies: readonly string[];
}

const bearerPattern = /^bearer[ ]+(\S+)[ ]*$/i;

function lastForwarded(value: string | string[] | undefined): string | undefined {
  const joined = Array.isArray(value) ? value.join(',') : value;
  return joined?.split(',').pop()?.trim();
}

/**
 * Reads an upgrade request's transport: whether it counts as TLS, and the client address. The same rules as
 * createTransportCheck, for a node IncomingMessage instead of a Fastify request.
 */
export function createUpgradeTransportReader(
  policy: UpgradeTransportPolicy,
): (req: IncomingMessage) => { secure: boolean; remoteAddress: string | null } {
  const isTrustedProxy = proxyAddr.compile([...policy.trustedProxies]);
  return (req) => {
    const socket = req.socket as { encrypted?: boolean; remoteAddress?: string };
    const peer = socket.remoteAddress ?? '';
    if (policy.trustedProxies.length > 0 && peer && isTrustedProxy(peer, 0)) {
      // The last value is the one our trusted proxy set; earlier ones may come from the client.
      const forwardedFor = lastForwarded(req.headers['x-forwarded-for']);
      const remoteAddress = forwardedFor !== undefined && forwardedFor !== '' ? forwardedFor : peer;
      if (socket.encrypted === true) return { secure: true, remoteAddress };
      const proto = lastForwarded(req.headers['x-forwarded-proto'])?.toLowerCase();
      return { secure: proto === 'https', remoteAddress };
    }
    if (socket.encrypted === true) return { secure: true, remoteAddress: peer || null };
    return {
      secure: policy.tlsMode === 'disabled' && isLoopbackAddress(peer),
      remoteAddress: peer || null,
    };
  };
}

export interface ChannelAuthDeps extends UpgradeTransportPolicy {
  db: Kysely<Database>;
  logger?: Logger;
  /** Shared with the HTTP request log, so one address's refusals are summed up together. */
  refusals?: RefusalLog;
  failures?: ChannelFailureLimiter;
}

type CredentialCheck = { assetId: string } | { refused: 'missing' | 'malformed' | 'unknown or revoked' };

async function checkCredential(db: Kysely<Database>, header: string | undefined): Promise<CredentialCheck> {
  if (typeof header !== 'string') return { refused: 'missing' };
  const text = bearerPattern.exec(header)?.[1];
  if (text === undefined || !agentCredentialPattern.test(text)) return { refused: 'malformed' };
  const hash = sha256Hex(text);
  const row = await findAgentCredentialByHash(db, hash);
  if (!row || !constantTimeEqual(row.credential_hash, hash)) return { refused: 'unknown or revoked' };
  return { assetId: row.asset_id };
}

/**
 * Resolves an upgrade request to its asset. Returns null for a missing, malformed, unknown or revoked
 * credential, or one whose asset is gone; throws HubError `https_required` for an upgrade over plain HTTP
 * (checked first, so a credential sent in clear is never looked up), and `rate_limited` for an address with too
 * many failed credentials this minute (checked before the credential).
 */
export function createChannelAuthenticator(
  deps: ChannelAuthDeps,
): (req: IncomingMessage) => Promise<ChannelPeer | null> {
  const transport = createUpgradeTransportReader(deps);
  const logger = deps.logger ?? silentLogger;
  const refusals = deps.refusals ?? createRefusalLog({ logger });
  const failures = deps.failures ?? createChannelFailureLimiter();
  return async (req) => {
    const { secure, remoteAddress } = transport(req);
    if (!secure) {
      throw new HubError('https_required', 'The agent channel is accepted only over TLS (wss://).');
    }
    const retryAfter = failures.retryAfterSeconds(remoteAddress);
    if (retryAfter > 0) {
      if (refusals.admit(remoteAddress, 'agent credential throttled')) {
        logger.warn(
          { remote_address: remoteAddress },
          'agent channel upgrade throttled: too many failed credentials',
        );
      }
      throw new HubError(
        'rate_limited',
        'Too many failed agent credentials from this address; retry after the time in Retry-After.',
        { headers: { 'Retry-After': String(retryAfter) } },
      );
    }
    const check = await checkCredential(deps.db, req.headers.authorization);
    if ('refused' in check) {
      failures.recordFailure(remoteAddress);
      if (refusals.admit(remoteAddress, 'agent credential')) {
        logger.warn(
          { remote_address: remoteAddress, reason: check.refused },
          'agent channel credential refused',
        );
      }
      return null;
    }
    return { assetId: check.assetId, remoteAddress };
  };
}
