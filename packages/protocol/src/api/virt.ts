/**
 * Virtualization (Proxmox VE) through its connector: cluster status, resources, guest start/stop followed to the
 * task's end, Ceph health. Guests and nodes are assets (`source: connector`), so start/stop authorize by asset.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, Maybe, assetParam, literals, paged } from './shared.js';

const ConnectorQuery = Type.Object({
  connector: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A virt connector id; by default the first enabled one',
    }),
  ),
});

export const VirtNode = Type.Object({
  name: Type.String(),
  online: Type.Boolean(),
  ip: Maybe(Type.String()),
  /** The node the hub's calls arrive at. */
  local: Type.Boolean(),
  nodeid: Maybe(Type.Integer()),
  asset_id: Maybe(Type.String()),
});
export type VirtNode = Static<typeof VirtNode>;

export const VirtClusterStatus = Type.Object({
  connector_id: Type.String(),
  /** Null for a standalone node (no cluster entry upstream). */
  cluster: Maybe(
    Type.Object({
      name: Type.String(),
      quorate: Type.Boolean(),
      nodes: Type.Integer(),
      version: Maybe(Type.Integer()),
    }),
  ),
  nodes: Type.Array(VirtNode),
});
export type VirtClusterStatus = Static<typeof VirtClusterStatus>;

export const virtResourceTypes = ['qemu', 'lxc', 'node', 'storage'] as const;
export type VirtResourceType = (typeof virtResourceTypes)[number];

export const VirtResource = Type.Object({
  connector_id: Type.String(),
  /** The asset it appears as (null until the inventory sync made it one). */
  asset_id: Maybe(Type.String()),
  /** The upstream id: `qemu/100`, `lxc/101`, `node/pve1`, `storage/pve1/local`. */
  id: Type.String(),
  type: literals(virtResourceTypes),
  node: Maybe(Type.String()),
  name: Type.String(),
  status: Type.String(),
  vmid: Maybe(Type.Integer()),
  /** CPU use as a fraction of `maxcpu` (0..1). */
  cpu: Maybe(Type.Number()),
  maxcpu: Maybe(Type.Number()),
  mem: Maybe(Type.Number()),
  maxmem: Maybe(Type.Number()),
  disk: Maybe(Type.Number()),
  maxdisk: Maybe(Type.Number()),
  uptime: Maybe(Type.Number()),
  template: Type.Boolean(),
  shared: Type.Boolean(),
});
export type VirtResource = Static<typeof VirtResource>;

export const VirtResourcesQuery = paged(
  Type.Object({
    ...ConnectorQuery.properties,
    type: Type.Optional(literals(virtResourceTypes)),
  }),
);

export const virtActions = ['start', 'stop'] as const;

/** A start or stop that ran to its end upstream with exit status OK (anything else is 502). */
export const VirtTaskResult = Type.Object({
  asset_id: Type.String(),
  action: literals(virtActions),
  upid: Type.String(),
  exitstatus: Type.String(),
  duration_ms: Type.Number(),
});
export type VirtTaskResult = Static<typeof VirtTaskResult>;

export const CephStatus = Type.Object({
  connector_id: Type.String(),
  /** `HEALTH_OK`, `HEALTH_WARN` or `HEALTH_ERR`. */
  health: Type.String(),
  checks: Type.Array(Type.Object({ name: Type.String(), severity: Type.String(), summary: Type.String() })),
  osds: Maybe(Type.Object({ total: Type.Integer(), up: Type.Integer(), in: Type.Integer() })),
  pgs: Maybe(
    Type.Object({
      total: Type.Integer(),
      states: Type.Array(Type.Object({ name: Type.String(), count: Type.Integer() })),
    }),
  ),
  usage: Maybe(Type.Object({ used: Type.Number(), avail: Type.Number(), total: Type.Number() })),
  monitors: Maybe(Type.Integer()),
});
export type CephStatus = Static<typeof CephStatus>;

export const virtContracts = {
  'virt.clusterStatus': defineRoute({
    name: 'virt.clusterStatus',
    surface: 'v2',
    method: 'GET',
    path: '/virt/cluster/status',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'Proxmox cluster health: quorum and nodes (a standalone node has no cluster entry)',
    // The whole cluster, not one asset: keys restricted to some assets read their guests through resources.
    unrestrictedOnly: true,
    query: ConnectorQuery,
    response: VirtClusterStatus,
  }),
  'virt.clusterResources': defineRoute({
    name: 'virt.clusterResources',
    surface: 'v2',
    method: 'GET',
    path: '/virt/cluster/resources',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'All Proxmox VMs, containers, nodes and storage (only the assets the caller may see)',
    query: VirtResourcesQuery,
    response: VirtResource,
    list: true,
  }),
  'virt.start': defineRoute({
    name: 'virt.start',
    surface: 'v2',
    method: 'POST',
    path: '/virt/assets/{id}/start',
    auth: 'scope',
    scope: 'connectors:write',
    summary: 'Start a VM or CT and wait for its task to end',
    description:
      'Follows the upstream task (UPID) to its end: success only when its exit status is OK; any other end ' +
      'is 502 `upstream_error` carrying the exit status. 403 when `policy.connector_enabled` is off.',
    asset: assetParam,
    params: IdParams,
    response: VirtTaskResult,
  }),
  'virt.stop': defineRoute({
    name: 'virt.stop',
    surface: 'v2',
    method: 'POST',
    path: '/virt/assets/{id}/stop',
    auth: 'scope',
    scope: 'connectors:write',
    summary: 'Stop a VM or CT and wait for its task to end',
    description: 'As start. 403 when `policy.connector_enabled` is off.',
    asset: assetParam,
    params: IdParams,
    response: VirtTaskResult,
  }),
  'virt.ceph': defineRoute({
    name: 'virt.ceph',
    surface: 'v2',
    method: 'GET',
    path: '/virt/ceph/status',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'Ceph health of the Proxmox cluster',
    unrestrictedOnly: true,
    query: ConnectorQuery,
    response: CephStatus,
  }),
} satisfies Record<string, RouteContract>;
