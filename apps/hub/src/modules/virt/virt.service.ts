/**
 * Proxmox VE through its connectors: cluster status and Ceph of one connector, resources of all of them (only
 * what the caller may see), and start/stop of a guest asset followed to the task's end.
 */
import type {
  CephStatus,
  VirtClusterStatus,
  VirtResource,
  VirtResourceType,
  VirtTaskResult,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { canSeeAsset, type ActionContext, type Principal } from '../../access/principal.js';
import { UpstreamError } from '../../connectors/base/upstream-error.js';
import { createVirtClient, type VirtTaskOptions } from '../../connectors/virt/virt.client.js';
import { mapCeph, mapClusterStatus, mapResources, toNumber } from '../../connectors/virt/virt.connector.js';
import type { Database } from '../../platform/db/schema.js';
import { toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import type { ConnectorAssetService } from '../assets/connector-assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ConnectorService } from '../connectors/connectors.service.js';

export interface VirtService {
  clusterStatus(connectorId?: string): Promise<VirtClusterStatus>;
  resources(
    principal: Principal,
    query: { connector?: string; type?: VirtResourceType },
    page: PageRequest,
  ): Promise<Page<VirtResource>>;
  guestAction(ctx: ActionContext, assetId: string, action: 'start' | 'stop'): Promise<VirtTaskResult>;
  ceph(connectorId?: string): Promise<CephStatus>;
}

export function createVirtService(deps: {
  db: Kysely<Database>;
  audit: AuditService;
  connectors: ConnectorService;
  connectorAssets: ConnectorAssetService;
  task?: Partial<VirtTaskOptions>;
}): VirtService {
  const { db, audit, connectors, connectorAssets } = deps;
  const task: VirtTaskOptions = { pollMs: 500, timeoutMs: 120_000, ...deps.task };

  async function assetIdsOf(connectorId: string): Promise<Map<string, string>> {
    return new Map((await connectorAssets.list(connectorId)).map((a) => [a.externalId, a.id]));
  }

  return {
    async clusterStatus(connectorId) {
      const connector = await connectors.pick('virt', connectorId);
      const entries = await connectors.call(connector, (ctx) => createVirtClient(ctx).clusterStatus());
      return mapClusterStatus(connector.id, entries, await assetIdsOf(connector.id));
    },

    async resources(principal, query, page) {
      const targets =
        query.connector === undefined
          ? await connectors.enabledOf('virt')
          : [await connectors.pick('virt', query.connector)];
      const all: VirtResource[] = [];
      for (const connector of targets) {
        const resources = await connectors.call(connector, (ctx) => createVirtClient(ctx).resources());
        all.push(...mapResources(connector.id, resources, await assetIdsOf(connector.id)));
      }
      const visible = all.filter(
        (r) =>
          (query.type === undefined || r.type === query.type) &&
          (principal.allowedAssets === null || (r.asset_id !== null && canSeeAsset(principal, r.asset_id))),
      );
      visible.sort((a, b) => a.connector_id.localeCompare(b.connector_id) || a.id.localeCompare(b.id));
      const start = (page.page - 1) * page.perPage;
      return toPage(visible.slice(start, start + page.perPage), visible.length, page);
    },

    async guestAction(ctx, assetId, action) {
      // The policy answers at once, before anything is looked up or sent.
      connectors.assertActionsAllowed();
      const { asset, connector } = await connectors.resolveAsset(ctx.principal, assetId, 'virt');
      if (asset.kind !== 'vm' && asset.kind !== 'ct') {
        throw new HubError(
          'conflict',
          `asset ${asset.name} (${asset.id}) is a ${asset.kind}, not a VM or container`,
        );
      }
      const vmid = toNumber(asset.facts.vmid as number | string | undefined);
      const type = asset.kind === 'vm' ? 'qemu' : 'lxc';
      if (vmid === null) throw new HubError('conflict', `asset ${asset.id} has no VMID; sync its connector`);
      await db.transaction().execute(async (trx) => {
        await audit.record(trx, ctx, {
          action: `virt.${action}`,
          targetType: 'asset',
          targetId: asset.id,
          assetId: asset.id,
          detail: { connector_id: connector.id, vmid, type },
        });
      });
      const started = performance.now();
      try {
        const outcome = await connectors.call(connector, async (upstream) => {
          const client = createVirtClient(upstream, task);
          // The guest may have moved since the last sync: ask where it lives now.
          const guests = await client.resources('vm');
          const current = guests.find((g) => g.id === `${type}/${String(vmid)}`);
          if (!current?.node)
            throw new UpstreamError('http', `${type}/${String(vmid)} is not in the cluster any more`, 404);
          return client.guestAction(current.node, type, vmid, action);
        });
        return {
          asset_id: asset.id,
          action,
          upid: outcome.upid,
          exitstatus: outcome.exitstatus,
          duration_ms: Math.round(performance.now() - started),
        };
      } finally {
        // The guest's status changed (or may have): the assets follow without waiting for the periodic pass.
        await connectors.resync(connector.id);
      }
    },

    async ceph(connectorId) {
      const connector = await connectors.pick('virt', connectorId);
      const ceph = await connectors.call(connector, (ctx) => createVirtClient(ctx).ceph());
      return mapCeph(connector.id, ceph);
    },
  };
}
