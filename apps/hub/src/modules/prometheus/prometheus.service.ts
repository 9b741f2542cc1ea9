/**
 * The Prometheus integration's rules: the discovery targets a caller may see (decision 0074), and the admin's
 * exporter ports and remote-write configuration (decision 0075): the URL vetted by the egress guard, the TLS
 * choice checked, credentials sealed and never returned, each change audited in its transaction.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import {
  fullPath,
  prometheusContracts,
  prometheusLimits,
  type Asset,
  type PrometheusExporter,
  type PrometheusSettings,
  type PrometheusTargetGroup,
  type RemoteWriteUpdate,
} from '@svc/protocol';
import type { ActionContext, Principal } from '../../access/principal.js';
import { tlsProblem, type ConnectorTls } from '../../connectors/base/connector-tls.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import { vetOutboundUrl } from '../../platform/outbound/outbound-url.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { GroupService } from '../groups/groups.service.js';
import {
  presentRemoteWrite,
  readExporter,
  readRemoteWrite,
  readSenderState,
  remoteWriteCredentialsContext,
  removeRemoteWrite,
  writeExporter,
  writeRemoteWrite,
  type StoredRemoteWrite,
} from './prometheus-config.js';
import { buildTargets, type TargetGroupInfo } from './targets.js';

export interface PrometheusService {
  targets(principal: Principal): Promise<PrometheusTargetGroup[]>;
  settings(): Promise<PrometheusSettings>;
  setExporter(ctx: ActionContext, input: PrometheusExporter): Promise<PrometheusSettings>;
  setRemoteWrite(ctx: ActionContext, input: RemoteWriteUpdate): Promise<PrometheusSettings>;
  removeRemoteWrite(ctx: ActionContext): Promise<PrometheusSettings>;
}

export interface PrometheusServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  outbound: LiveOutbound;
  assets: Pick<AssetService, 'list'>;
  groups: Pick<GroupService, 'list' | 'get'>;
}

const perPage = 500;
const targetsPath = fullPath(prometheusContracts['prometheus.targets']);

export function createPrometheusService(deps: PrometheusServiceDeps): PrometheusService {
  const { db, clock, audit, box } = deps;

  async function visibleAssets(principal: Principal): Promise<Asset[]> {
    const out: Asset[] = [];
    for (let page = 1; out.length < prometheusLimits.maxTargets; page++) {
      const { items } = await deps.assets.list(principal, { sort: 'name' }, { page, perPage });
      out.push(...items);
      if (items.length < perPage) break;
    }
    return out.slice(0, prometheusLimits.maxTargets);
  }

  async function groupsByAsset(principal: Principal): Promise<Map<string, TargetGroupInfo[]>> {
    const byAsset = new Map<string, TargetGroupInfo[]>();
    // Bounded: at most 100 pages of groups.
    for (let page = 1; page <= 100; page++) {
      const { items } = await deps.groups.list(principal, { page, perPage });
      for (const group of items) {
        for (const id of group.asset_ids) {
          const list = byAsset.get(id) ?? [];
          list.push({ id: group.id, name: group.name });
          byAsset.set(id, list);
        }
      }
      if (items.length < perPage) break;
    }
    return byAsset;
  }

  async function settings(): Promise<PrometheusSettings> {
    const [exporter, remote, state] = await Promise.all([
      readExporter(db),
      readRemoteWrite(db),
      readSenderState(db),
    ]);
    return {
      targets_path: targetsPath,
      exporter,
      remote_write: remote === null ? null : presentRemoteWrite(remote),
      status: remote !== null && state !== null && state.config_at === remote.revision ? state.status : null,
    };
  }

  async function checkGroups(principal: Principal, input: PrometheusExporter): Promise<void> {
    const seen = new Set<string>();
    for (const [i, entry] of input.group_ports.entries()) {
      const field = `group_ports.${String(i)}.group_id`;
      if (seen.has(entry.group_id)) throw validationError(field, 'named twice');
      seen.add(entry.group_id);
      try {
        await deps.groups.get(principal, entry.group_id);
      } catch (error) {
        if (error instanceof HubError && error.code === 'not_found')
          throw validationError(field, 'no such group');
        throw error;
      }
    }
  }

  function sealedCredentials(input: RemoteWriteUpdate, stored: StoredRemoteWrite | null): string | null {
    if (input.auth === 'none') return null;
    if (input.credentials !== undefined) return box.seal(input.credentials, remoteWriteCredentialsContext);
    if (stored !== null && stored.auth === input.auth && stored.credentials_sealed !== null) {
      return stored.credentials_sealed;
    }
    throw validationError('credentials', `required when auth is ${input.auth}`);
  }

  return {
    async targets(principal) {
      const [assets, groups, exporter] = await Promise.all([
        visibleAssets(principal),
        groupsByAsset(principal),
        readExporter(db),
      ]);
      return buildTargets(assets, groups, exporter);
    },

    settings,

    async setExporter(ctx, input) {
      await checkGroups(ctx.principal, input);
      await db.transaction().execute(async (trx) => {
        await writeExporter(trx, input, clock.now());
        await audit.record(trx, ctx, {
          action: 'prometheus.exporter_updated',
          targetType: 'prometheus',
          targetId: 'exporter',
          detail: { default_port: input.default_port, group_ports: input.group_ports.length },
        });
      });
      return settings();
    },

    async setRemoteWrite(ctx, input) {
      await vetOutboundUrl(deps.outbound.client(), input.url, {
        field: 'url',
        credentialsHint: 'use auth and credentials',
      });
      const stored = await readRemoteWrite(db);
      if (input.auth === 'basic' && (input.username ?? null) === null) {
        throw validationError('username', 'required when auth is basic');
      }
      const tls: ConnectorTls = {
        mode: input.tls_mode ?? 'system',
        ca: input.tls_ca ?? null,
        fingerprint: input.tls_fingerprint ?? null,
      };
      const problem = tlsProblem(tls);
      if (problem) throw validationError(problem.field, problem.problem);
      const now = clock.now();
      const row: StoredRemoteWrite = {
        revision: randomUUID(),
        enabled: input.enabled,
        url: input.url,
        auth: input.auth,
        username: input.auth === 'basic' ? (input.username ?? null) : null,
        credentials_sealed: sealedCredentials(input, stored),
        tls_mode: tls.mode,
        tls_ca: tls.mode === 'pinned_ca' ? tls.ca : null,
        tls_fingerprint: tls.mode === 'fingerprint' ? tls.fingerprint : null,
        max_backlog_samples: input.max_backlog_samples ?? prometheusLimits.defaultMaxBacklogSamples,
        updated_at: now.toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        await writeRemoteWrite(trx, row, now);
        await audit.record(trx, ctx, {
          action: 'prometheus.remote_write_updated',
          targetType: 'prometheus',
          targetId: 'remote_write',
          detail: { url: row.url, enabled: row.enabled, auth: row.auth, tls_mode: row.tls_mode },
        });
      });
      return settings();
    },

    async removeRemoteWrite(ctx) {
      await db.transaction().execute(async (trx) => {
        await removeRemoteWrite(trx);
        await audit.record(trx, ctx, {
          action: 'prometheus.remote_write_removed',
          targetType: 'prometheus',
          targetId: 'remote_write',
        });
      });
      return settings();
    },
  };
}
