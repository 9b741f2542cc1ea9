/**
 * Agent enrollment: admins make enrollment tokens (`sve_…`, shown once, SHA-256 at rest, limited uses and
 * lifetime); an agent trades one for an asset and its own credential (`sva_…`, SHA-256 at rest, one per
 * asset) at `POST /api/v1/enroll`. Admins rotate a connected agent's credential through the channel, or
 * revoke it, which also disconnects the agent.
 */
import {
  agentChannelPath,
  enrollmentTokenPattern,
  newId,
  sanitizeDisplayText,
  type CredentialRevoked,
  type CredentialRotated,
  type EnrollmentToken,
  type EnrollmentTokenCreate,
  type EnrollmentTokenCreated,
  type EnrollRequest,
  type EnrollResponse,
} from '@svc/protocol';
import type { Static } from 'typebox';
import type { Kysely } from 'kysely';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  type AgentGateway,
} from '../../agents/agent-gateway.js';
import { localRateLimiters, type RateLimiterFactory } from '../../http/rate-limit.js';
import type { Clock } from '../../platform/clock.js';
import { constantTimeEqual, randomToken, sha256Hex } from '../../platform/crypto.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { TlsManager } from '../../platform/tls/tls-manager.js';
import { canSeeAsset, type ActionContext } from '../../access/principal.js';
import type { AssetRow, AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  deleteAgentCredential,
  findAgentCredential,
  insertAgentCredential,
  replaceAgentCredentialHash,
} from '../../agents/agent-credentials.repository.js';
import {
  consumeEnrollmentToken,
  findEnrollmentToken,
  findEnrollmentTokenByHash,
  insertEnrollmentToken,
  listEnrollmentTokens,
  revokeEnrollmentToken,
  type EnrollmentTokenRow,
} from './enrollment.repository.js';

type CredentialRotatedT = Static<typeof CredentialRotated>;
type CredentialRevokedT = Static<typeof CredentialRevoked>;

const enrollmentDefaults = {
  expiresInHours: 24,
  maxUses: 1,
  /** ARCHITECTURE.md section 3: `/api/v1/enroll` 30/min per IP. */
  enrollsPerMinute: 30,
  /** How long a rotation waits for the agent to confirm it saved the new credential. */
  rotationTimeoutMs: 15_000,
} as const;

/** Asset names are limited to 120 characters; hostnames may have up to 253. */
const assetNameLength = 120;

export interface EnrollmentService {
  createToken(ctx: ActionContext, input: EnrollmentTokenCreate): Promise<EnrollmentTokenCreated>;
  listTokens(page: PageRequest): Promise<Page<EnrollmentToken>>;
  revokeToken(ctx: ActionContext, id: string): Promise<EnrollmentToken>;
  /** The public enrollment: token in, asset id, credential and CA out. */
  enroll(ctx: ActionContext, input: EnrollRequest): Promise<EnrollResponse>;
  rotateCredential(ctx: ActionContext, assetId: string): Promise<CredentialRotatedT>;
  revokeCredential(ctx: ActionContext, assetId: string): Promise<CredentialRevokedT>;
}

export interface EnrollmentServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  tls: Pick<TlsManager, 'status' | 'caCertificate'>;
  gateway: Pick<AgentGateway, 'isConnected' | 'request' | 'disconnect'>;
  /** An enrollment adds the agent's asset in the transaction that takes the token and stores the credential. */
  assets: Pick<AssetService, 'findRow' | 'insertRow'>;
  /** Enrollments per minute per source IP; null switches the limit off (benchmarks). Default 30. */
  enrollsPerMinute?: number | null;
  /** The limiter's maker: the cluster's shared one when several processes serve (decision 0040). */
  rateLimiters?: RateLimiterFactory;
  rotationTimeoutMs?: number;
  /** A token's lifetime and uses when its request names none: runtime settings, read at each creation. */
  tokenDefaults?: () => { expiresInHours: number; maxUses: number };
}

/** Credential text for an agent: `sva_` + 52 lowercase base32 characters (32 random bytes). */
function newAgentCredential(): string {
  return `sva_${randomToken(32)}`;
}

function newEnrollmentTokenText(): string {
  return `sve_${randomToken(32)}`;
}

/** The ARCHITECTURE.md message for an agent operation on an asset whose agent is not connected. */
function assetOfflineError(asset: Pick<AssetRow, 'id' | 'name' | 'last_seen_at'>): HubError {
  return new HubError(
    'asset_offline',
    `asset ${asset.name} (${asset.id}) is offline (last seen: ${asset.last_seen_at ?? 'never'})`,
  );
}

const invalidToken = (): HubError =>
  new HubError('unauthorized', 'The enrollment token is not valid, has expired, was revoked or is used up.');

export function createEnrollmentService(deps: EnrollmentServiceDeps): EnrollmentService {
  const { db, clock, audit, events, tls, gateway } = deps;
  const perMinute =
    deps.enrollsPerMinute === undefined ? enrollmentDefaults.enrollsPerMinute : deps.enrollsPerMinute;
  const limiter =
    perMinute === null
      ? null
      : (deps.rateLimiters ?? localRateLimiters)('enroll_per_ip', perMinute, {
          now: () => clock.now().getTime(),
        });
  const rotationTimeoutMs = deps.rotationTimeoutMs ?? enrollmentDefaults.rotationTimeoutMs;
  /** Assets with a rotation in flight: a second one at the same time could leave agent and hub disagreeing. */
  const rotating = new Set<string>();

  function caFingerprint(): string | null {
    const status = tls.status();
    return status.ca_download ? (status.ca?.fingerprint_sha256 ?? null) : null;
  }

  function present(row: EnrollmentTokenRow): EnrollmentToken {
    return {
      id: row.id,
      name: row.name,
      expires_at: row.expires_at,
      max_uses: row.max_uses,
      uses: row.uses,
      revoked: row.revoked_at !== null,
      created_by: row.created_by,
      created_at: row.created_at,
      ca_fingerprint_sha256: caFingerprint(),
    };
  }

  async function loadAsset(ctx: ActionContext, assetId: string): Promise<AssetRow> {
    const row = canSeeAsset(ctx.principal, assetId) ? await deps.assets.findRow(assetId) : undefined;
    if (!row) throw new HubError('not_found', `no asset ${assetId}`);
    return row;
  }

  async function offline(assetId: string, fallback: AssetRow): Promise<HubError> {
    return assetOfflineError((await deps.assets.findRow(assetId)) ?? fallback);
  }

  /** Changes an asset's agent credential and, when that changed a row, audits it in the same transaction. */
  async function changeCredential(
    ctx: ActionContext,
    asset: AssetRow,
    action: 'agent.credential_rotated' | 'agent.credential_revoked',
    change: (trx: Executor) => Promise<boolean>,
  ): Promise<boolean> {
    const changed = await db.transaction().execute(async (trx) => {
      const done = await change(trx);
      if (done) {
        await audit.record(trx, ctx, {
          action,
          targetType: 'asset',
          targetId: asset.id,
          assetId: asset.id,
          detail: { name: asset.name },
        });
      }
      return done;
    });
    if (changed) events.publish(action, { asset_ids: [asset.id], asset_id: asset.id, name: asset.name });
    return changed;
  }

  return {
    async createToken(ctx, input) {
      const now = clock.now();
      const defaults = deps.tokenDefaults?.() ?? enrollmentDefaults;
      const hours = input.expires_in_hours ?? defaults.expiresInHours;
      const token = newEnrollmentTokenText();
      const row: EnrollmentTokenRow = {
        id: newId('enrollmentToken'),
        token_hash: sha256Hex(token),
        name: input.name,
        expires_at: new Date(now.getTime() + hours * 3_600_000).toISOString(),
        max_uses: input.max_uses ?? defaults.maxUses,
        uses: 0,
        revoked_at: null,
        created_by: ctx.principal.key?.id ?? ctx.principal.userId,
        created_at: now.toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        await insertEnrollmentToken(trx, row);
        await audit.record(trx, ctx, {
          action: 'enrollment_token.created',
          targetType: 'enrollment_token',
          targetId: row.id,
          detail: { name: row.name, expires_at: row.expires_at, max_uses: row.max_uses },
        });
      });
      events.publish('enrollment_token.created', { asset_ids: [], token_id: row.id, name: row.name });
      return { ...present(row), token };
    },

    async listTokens(page) {
      const { rows, total } = await listEnrollmentTokens(db, pageWindow(page));
      return toPage(rows.map(present), total, page);
    },

    async revokeToken(ctx, id) {
      const row = await findEnrollmentToken(db, id);
      if (!row) throw new HubError('not_found', `no enrollment token ${id}`);
      if (row.revoked_at !== null) return present(row);
      const now = clock.now().toISOString();
      await db.transaction().execute(async (trx) => {
        await revokeEnrollmentToken(trx, id, now);
        await audit.record(trx, ctx, {
          action: 'enrollment_token.revoked',
          targetType: 'enrollment_token',
          targetId: id,
          detail: { name: row.name, uses: row.uses },
        });
      });
      events.publish('enrollment_token.revoked', { asset_ids: [], token_id: id, name: row.name });
      return present({ ...row, revoked_at: now });
    },

    async enroll(ctx, input) {
      if (limiter) {
        const decision = limiter.take(ctx.ip ?? 'unknown');
        if (!decision.allowed) {
          throw new HubError('rate_limited', 'Too many enrollments from this address; retry later.', {
            headers: { 'Retry-After': String(decision.retryAfterSeconds) },
          });
        }
      }
      if (!enrollmentTokenPattern.test(input.token)) throw invalidToken();
      // The agent names itself: what a terminal or the console would render as something else is dropped.
      const hostname = sanitizeDisplayText(input.hostname);
      if (hostname === '') throw validationError('hostname', 'must not be blank');
      const tokenHash = sha256Hex(input.token);
      const now = clock.now().toISOString();
      const credential = newAgentCredential();
      const asset: AssetRow = {
        id: newId('asset'),
        name: hostname.slice(0, assetNameLength),
        hostname,
        platform: input.platform ?? 'other',
        status: 'offline',
        source: 'agent',
        ip_addresses: '[]',
        mac_address: null,
        tags: '[]',
        description: null,
        last_seen_at: null,
        agent_version: input.agent_version === undefined ? null : sanitizeDisplayText(input.agent_version),
        agent_connected_at: null,
        agent_low_power: null,
        hub_host: 0,
        created_at: now,
        updated_at: now,
      };
      const token = await db.transaction().execute(async (trx) => {
        const row = await findEnrollmentTokenByHash(trx, tokenHash);
        if (!row || !constantTimeEqual(row.token_hash, tokenHash)) throw invalidToken();
        // The use is taken by a conditional UPDATE: of concurrent enrollments, at most max_uses succeed.
        if (!(await consumeEnrollmentToken(trx, row.id, now))) throw invalidToken();
        await deps.assets.insertRow(trx, asset);
        await insertAgentCredential(trx, {
          asset_id: asset.id,
          credential_hash: sha256Hex(credential),
          enrollment_token_id: row.id,
          created_at: now,
          rotated_at: null,
        });
        await audit.record(trx, null, {
          action: 'agent.enrolled',
          targetType: 'asset',
          targetId: asset.id,
          assetId: asset.id,
          detail: {
            hostname,
            platform: asset.platform,
            agent_version: asset.agent_version,
            enrollment_token_id: row.id,
            enrollment_token_name: row.name,
            ip: ctx.ip,
          },
        });
        return row;
      });
      events.publish('agent.enrolled', {
        asset_ids: [asset.id],
        asset_id: asset.id,
        name: asset.name,
        hostname,
        platform: asset.platform,
        enrollment_token_id: token.id,
      });
      return {
        asset_id: asset.id,
        credential,
        ca_pem: tls.caCertificate(),
        ca_fingerprint_sha256: caFingerprint(),
        channel_path: agentChannelPath,
      };
    },

    async rotateCredential(ctx, assetId) {
      const asset = await loadAsset(ctx, assetId);
      const current = await findAgentCredential(db, assetId);
      if (!current) {
        throw new HubError(
          'conflict',
          `asset ${asset.name} (${asset.id}) has no agent credential; enroll its agent again`,
        );
      }
      if (!gateway.isConnected(assetId)) throw assetOfflineError(asset);
      if (rotating.has(assetId)) {
        throw new HubError(
          'conflict',
          `a credential rotation for asset ${asset.name} (${asset.id}) is already running`,
        );
      }
      rotating.add(assetId);
      try {
        const credential = newAgentCredential();
        let saved: boolean;
        try {
          const result = await gateway.request(
            assetId,
            'credential.rotate',
            { credential },
            { timeoutMs: rotationTimeoutMs },
          );
          saved = result.saved;
        } catch (error) {
          if (error instanceof AgentOfflineError) throw await offline(assetId, asset);
          if (error instanceof AgentTimeoutError) {
            throw new HubError(
              'unavailable',
              `the agent of asset ${asset.name} (${asset.id}) did not confirm the new credential in time; the current credential stays valid`,
            );
          }
          if (error instanceof AgentReplyError) {
            throw new HubError(
              'upstream_error',
              `the agent could not save the new credential: ${error.message}`,
            );
          }
          throw error;
        }
        if (!saved) return { asset_id: assetId, delivered: false };
        const replaced = await changeCredential(ctx, asset, 'agent.credential_rotated', (trx) =>
          replaceAgentCredentialHash(
            trx,
            assetId,
            current.credential_hash,
            sha256Hex(credential),
            clock.now().toISOString(),
          ),
        );
        if (!replaced) {
          throw new HubError(
            'conflict',
            `the credential of asset ${asset.name} (${asset.id}) was revoked during the rotation`,
          );
        }
        return { asset_id: assetId, delivered: true };
      } finally {
        rotating.delete(assetId);
      }
    },

    async revokeCredential(ctx, assetId) {
      const asset = await loadAsset(ctx, assetId);
      const revoked = await changeCredential(ctx, asset, 'agent.credential_revoked', (trx) =>
        deleteAgentCredential(trx, assetId),
      );
      gateway.disconnect(assetId, 'credential revoked');
      return { asset_id: assetId, revoked };
    },
  };
}
