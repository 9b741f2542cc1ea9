/**
 * Who is at the other end of an agent channel upgrade: the asset whose credential (`Authorization: Bearer
 * sva_…`) the request carries. The credential is the identity — an id the agent states is never read. The
 * upgrade must arrive over TLS (the hub's own, or a trusted proxy's with `X-Forwarded-Proto: https`), or from
 * loopback when TLS is disabled, and its client address is read behind trusted proxies, both by the functions the
 * HTTP API uses (transport-security.ts), so one client is judged, counted and logged alike on both. Failed
 * credentials are logged through the refusal log and limited per address (channel-failures.ts).
 */
import type { IncomingMessage } from 'node:http';
import type { Kysely } from 'kysely';
import { agentCredentialPattern } from '@svc/protocol';
import { readBearer } from '../http/authenticate.js';
import {
  createClientIpReader,
  createTransportCheck,
  type TransportPolicy,
} from '../http/transport-security.js';
import { constantTimeEqual, sha256Hex } from '../platform/crypto.js';
import type { Database } from '../platform/db/schema.js';
import { HubError } from '../platform/hub-error.js';
import { silentLogger, type Logger } from '../platform/logger.js';
import { createRefusalLog, type RefusalLog } from '../platform/refusal-log.js';
import { findAgentCredentialsByHashes, type AgentCredentialRow } from './agent-credentials.repository.js';
import { createChannelFailureLimiter, type ChannelFailureLimiter } from './channel-failures.js';

export interface ChannelPeer {
  assetId: string;
  /** The client's address: the socket peer, or what trusted proxies forwarded (as the HTTP API has it). */
  remoteAddress: string | null;
}

export interface ChannelAuthDeps extends TransportPolicy {
  db: Kysely<Database>;
  logger?: Logger;
  /** Shared with the HTTP request log, so one address's refusals are summed up together. */
  refusals?: RefusalLog;
  failures?: ChannelFailureLimiter;
}

type CredentialCheck = { assetId: string } | { refused: 'missing' | 'malformed' | 'unknown or revoked' };

type CredentialLookup = (hash: string) => Promise<AgentCredentialRow | undefined>;

/** Lookups at most this many to a query (well under SQLite's and PostgreSQL's parameter limits). */
const lookupBatchSize = 500;

/**
 * Credential lookups made in one turn of the event loop, read with one query (decision 0089): a hub that comes
 * back after a restart takes thousands of upgrades within seconds, and one query each was a good part of what
 * a reconnect cost it. The query runs after the turn, so a revocation committed before it is seen as before.
 */
function createCredentialLookup(db: Kysely<Database>): CredentialLookup {
  let waiting = new Map<
    string,
    { resolve: (row: AgentCredentialRow | undefined) => void; reject: (e: unknown) => void }[]
  >();

  async function read(batch: typeof waiting): Promise<void> {
    const hashes = [...batch.keys()];
    for (let i = 0; i < hashes.length; i += lookupBatchSize) {
      const part = hashes.slice(i, i + lookupBatchSize);
      const rows = new Map(
        (await findAgentCredentialsByHashes(db, part)).map((row) => [row.credential_hash, row] as const),
      );
      for (const hash of part) for (const waiter of batch.get(hash) ?? []) waiter.resolve(rows.get(hash));
    }
  }

  return (hash) =>
    new Promise((resolve, reject) => {
      if (waiting.size === 0) {
        setImmediate(() => {
          const batch = waiting;
          waiting = new Map();
          read(batch).catch((error: unknown) => {
            for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
          });
        });
      }
      const waiters = waiting.get(hash) ?? [];
      waiters.push({ resolve, reject });
      waiting.set(hash, waiters);
    });
}

async function checkCredential(
  lookup: CredentialLookup,
  header: string | undefined,
): Promise<CredentialCheck> {
  if (typeof header !== 'string') return { refused: 'missing' };
  const text = readBearer(header);
  if (text === null || !agentCredentialPattern.test(text)) return { refused: 'malformed' };
  const hash = sha256Hex(text);
  const row = await lookup(hash);
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
  const isSecure = createTransportCheck(deps);
  const clientIp = createClientIpReader(deps.trustedProxies);
  const logger = deps.logger ?? silentLogger;
  const refusals = deps.refusals ?? createRefusalLog({ logger });
  const failures = deps.failures ?? createChannelFailureLimiter();
  const lookup = createCredentialLookup(deps.db);
  return async (req) => {
    if (!isSecure(req)) {
      throw new HubError('https_required', 'The agent channel is accepted only over TLS (wss://).');
    }
    const remoteAddress = clientIp(req) || null;
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
    const check = await checkCredential(lookup, req.headers.authorization);
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
