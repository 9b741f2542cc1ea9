/** Proxmox VE as a connector: its nodes, guests and storage become assets; mapping to our types. */
import type { AssetStatus, VirtClusterStatus, VirtResource, CephStatus } from '@svc/protocol';
import type { ConnectorDriver, InventoryItem } from '../base/connector.js';
import { createVirtClient } from './virt.client.js';
import type { PveCephStatus, PveClusterEntry, PveResource } from './virt.upstream.js';

/** 0/1, true/false, "1": Proxmox's booleans as they arrive. */
function toBool(value: number | boolean | string | null | undefined): boolean {
  return value === true || value === 1 || value === '1';
}

/** A number that may arrive as a string (`"101"`); null when absent or not a number. */
export function toNumber(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

const virtTypes = new Set(['qemu', 'lxc', 'node', 'storage']);

function guestStatus(status: string | null | undefined): AssetStatus {
  if (status === 'running' || status === 'online' || status === 'available') return 'online';
  if (status === 'stopped' || status === 'offline' || status === 'unavailable') return 'offline';
  return 'unknown';
}

export function mapClusterStatus(
  connectorId: string,
  entries: PveClusterEntry[],
  assetIds: Map<string, string>,
): VirtClusterStatus {
  const cluster = entries.find((e) => e.type === 'cluster');
  return {
    connector_id: connectorId,
    cluster: cluster
      ? {
          name: cluster.name,
          quorate: toBool(cluster.quorate),
          nodes: toNumber(cluster.nodes) ?? 0,
          version: toNumber(cluster.version),
        }
      : null,
    nodes: entries
      .filter((e) => e.type === 'node')
      .map((e) => ({
        name: e.name,
        online: toBool(e.online),
        ip: e.ip ?? null,
        local: toBool(e.local),
        nodeid: toNumber(e.nodeid),
        asset_id: assetIds.get(`node/${e.name}`) ?? null,
      })),
  };
}

/** Resources of the four types the hub shows (pool, sdn and network entries are skipped). */
export function mapResources(
  connectorId: string,
  resources: PveResource[],
  assetIds: Map<string, string>,
): VirtResource[] {
  return resources
    .filter((r) => virtTypes.has(r.type))
    .map((r) => ({
      connector_id: connectorId,
      asset_id: assetIds.get(r.id) ?? null,
      id: r.id,
      type: r.type as VirtResource['type'],
      node: r.node ?? null,
      name: r.name ?? r.storage ?? r.node ?? r.id,
      status: r.status ?? 'unknown',
      vmid: toNumber(r.vmid),
      cpu: toNumber(r.cpu),
      maxcpu: toNumber(r.maxcpu),
      mem: toNumber(r.mem),
      maxmem: toNumber(r.maxmem),
      disk: toNumber(r.disk),
      maxdisk: toNumber(r.maxdisk),
      uptime: toNumber(r.uptime),
      template: toBool(r.template),
      shared: toBool(r.shared),
    }));
}

export function mapCeph(connectorId: string, ceph: PveCephStatus): CephStatus {
  const osd = ceph.osdmap?.osdmap ?? ceph.osdmap;
  const pg = ceph.pgmap;
  const osds = toNumber(osd?.num_osds);
  const used = toNumber(pg?.bytes_used);
  const avail = toNumber(pg?.bytes_avail);
  const total = toNumber(pg?.bytes_total);
  const monitors =
    toNumber(ceph.monmap?.num_mons) ?? ceph.monmap?.mons?.length ?? ceph.quorum_names?.length ?? null;
  return {
    connector_id: connectorId,
    health: ceph.health.status,
    checks: Object.entries(ceph.health.checks ?? {}).map(([name, check]) => ({
      name,
      severity: check.severity,
      summary: check.summary?.message ?? '',
    })),
    osds:
      osds === null
        ? null
        : { total: osds, up: toNumber(osd?.num_up_osds) ?? 0, in: toNumber(osd?.num_in_osds) ?? 0 },
    pgs:
      pg === undefined
        ? null
        : {
            total: toNumber(pg.num_pgs) ?? 0,
            states: (pg.pgs_by_state ?? []).map((s) => ({
              name: s.state_name,
              count: toNumber(s.count) ?? 0,
            })),
          },
    usage: used === null || avail === null || total === null ? null : { used, avail, total },
    monitors,
  };
}

/** Nodes, guests (templates left out: they never run) and storage, each tied to its node. */
function mapInventory(resources: PveResource[]): InventoryItem[] {
  const items: InventoryItem[] = [];
  for (const r of resources) {
    const parent = r.node ? `node/${r.node}` : null;
    if (r.type === 'node' && r.node) {
      items.push({
        externalId: r.id,
        kind: 'node',
        name: r.node,
        hostname: r.node,
        status: guestStatus(r.status),
        facts: { node: r.node },
      });
    } else if ((r.type === 'qemu' || r.type === 'lxc') && !toBool(r.template)) {
      const vmid = toNumber(r.vmid);
      if (vmid === null || !r.node) continue;
      items.push({
        externalId: r.id,
        kind: r.type === 'qemu' ? 'vm' : 'ct',
        name: r.name ?? `${r.type} ${String(vmid)}`,
        status: guestStatus(r.status),
        parentExternalId: parent,
        facts: { vmid, node: r.node, type: r.type },
      });
    } else if (r.type === 'storage' && r.node && r.storage) {
      items.push({
        externalId: r.id,
        kind: 'storage',
        name: `${r.storage} (${r.node})`,
        status: guestStatus(r.status),
        parentExternalId: parent,
        facts: { storage: r.storage, node: r.node, shared: toBool(r.shared) },
      });
    }
  }
  return items;
}

export const virtDriver: ConnectorDriver = {
  kind: 'virt',
  async check(ctx) {
    await createVirtClient(ctx).version();
  },
  async inventory(ctx) {
    return mapInventory(await createVirtClient(ctx).resources());
  },
};
