/** Assets: the machines and devices of the fleet, with their agent's status. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import {
  AssetIdPattern,
  Description,
  IdParams,
  Name,
  NullableTimestamp,
  Timestamp,
  assetParam,
  limits,
  literals,
  paged,
} from './shared.js';

export const platforms = ['linux', 'windows', 'macos', 'freebsd', 'other'] as const;
export type Platform = (typeof platforms)[number];
export const assetStatuses = ['online', 'offline', 'unknown'] as const;
export type AssetStatus = (typeof assetStatuses)[number];
/** `connector`: brought by a connector's inventory (a Proxmox guest, the NAS, a backup server), no agent. */
export const assetSources = ['manual', 'agent', 'connector'] as const;

/** Where a connector-managed asset comes from: the connector, its kind upstream, and its id there. */
export const AssetConnectorRef = Type.Object({
  connector_id: Type.String(),
  /** `node`, `vm`, `ct`, `storage`, `nas`, `backup`, `stacks_endpoint`, `homeauto`. */
  kind: Type.String(),
  /** The upstream's own id (`qemu/100`, `node/pve1`, a datastore server's host name). */
  external_id: Type.String(),
});
export type AssetConnectorRef = Static<typeof AssetConnectorRef>;

const Hostname = Type.String({ minLength: 1, maxLength: limits.hostnameLength, pattern: '^[A-Za-z0-9.-]+$' });
const IpAddress = Type.String({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] });
const MacAddress = Type.String({ pattern: '^[0-9A-Fa-f]{2}([:-][0-9A-Fa-f]{2}){5}$' });
const Tag = Type.String({ minLength: 1, maxLength: limits.tagLength, pattern: '^[A-Za-z0-9_.:/-]+$' });

export const AgentStatus = Type.Object({
  connected: Type.Boolean(),
  version: Type.Union([Type.String(), Type.Null()]),
  connected_at: NullableTimestamp,
});
export type AgentStatus = Static<typeof AgentStatus>;

export const Asset = Type.Object({
  id: Type.String(),
  name: Type.String(),
  hostname: Type.Union([Type.String(), Type.Null()]),
  platform: literals(platforms),
  status: literals(assetStatuses),
  source: literals(assetSources),
  ip_addresses: Type.Array(Type.String()),
  mac_address: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.String()),
  description: Type.Union([Type.String(), Type.Null()]),
  last_seen_at: NullableTimestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  agent: Type.Union([AgentStatus, Type.Null()]),
  /** The machine the hub itself runs on: exec, files, processes and logs there need the admin role. */
  hub_host: Type.Boolean(),
  /** Present for `source: connector`. */
  connector: Type.Optional(AssetConnectorRef),
});
export type Asset = Static<typeof Asset>;

const assetFields = {
  hostname: Type.Optional(Type.Union([Hostname, Type.Null()])),
  platform: Type.Optional(literals(platforms)),
  ip_addresses: Type.Optional(Type.Array(IpAddress, { maxItems: limits.ipAddressesPerAsset })),
  mac_address: Type.Optional(Type.Union([MacAddress, Type.Null()])),
  tags: Type.Optional(Type.Array(Tag, { maxItems: limits.tagsPerAsset })),
  description: Type.Optional(Type.Union([Description, Type.Null()])),
};
export const AssetCreate = Type.Object({ name: Name, ...assetFields }, { additionalProperties: false });
export type AssetCreate = Static<typeof AssetCreate>;
export const AssetUpdate = Type.Object(
  { name: Type.Optional(Name), ...assetFields },
  { additionalProperties: false, minProperties: 1 },
);
export type AssetUpdate = Static<typeof AssetUpdate>;

/** Orders of the asset list: a field, descending with `-`; ties by name, then id. */
export const assetSorts = [
  'name',
  '-name',
  'status',
  '-status',
  'platform',
  '-platform',
  'last_seen_at',
  '-last_seen_at',
] as const;
export type AssetSort = (typeof assetSorts)[number];

/** How many ids one `ids=` filter names: a page of references (audit events, say) resolved in one call. */
const listIdsMax = 100;
const oneAssetId = AssetIdPattern.slice(1, -1);

export const AssetListQuery = Type.Object({
  ids: Type.Optional(
    Type.String({
      pattern: `^${oneAssetId}(,${oneAssetId}){0,${listIdsMax - 1}}$`,
      description: `Only these assets: up to ${listIdsMax} comma-separated asset ids (unknown ones match nothing)`,
    }),
  ),
  status: Type.Optional(literals(assetStatuses)),
  platform: Type.Optional(literals(platforms)),
  group: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Only members of this group (a group id)' }),
  ),
  q: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: limits.searchQueryLength,
      description: 'Case-insensitive text in the name, hostname, an IP address or a tag',
    }),
  ),
  sort: Type.Optional({
    ...literals(assetSorts),
    description: 'Order: a field, descending with `-` (default `name`); assets never seen sort last',
  }),
});
export type AssetListQuery = Static<typeof AssetListQuery>;

export const assetsContracts = {
  'assets.list': defineRoute({
    name: 'assets.list',
    surface: 'v2',
    method: 'GET',
    path: '/assets',
    auth: 'scope',
    scope: 'assets:read',
    summary: 'List assets, filtered by status and platform',
    query: paged(AssetListQuery),
    response: Asset,
    list: true,
  }),
  'assets.get': defineRoute({
    name: 'assets.get',
    surface: 'v2',
    method: 'GET',
    path: '/assets/{id}',
    auth: 'scope',
    scope: 'assets:read',
    summary: 'Asset details with agent status',
    asset: assetParam,
    params: IdParams,
    response: Asset,
  }),
  'assets.create': defineRoute({
    name: 'assets.create',
    surface: 'v2',
    method: 'POST',
    path: '/assets',
    auth: 'scope',
    scope: 'assets:write',
    summary: 'Add a manual device',
    unrestrictedOnly: true,
    body: AssetCreate,
    response: Asset,
    successStatus: 201,
  }),
  'assets.update': defineRoute({
    name: 'assets.update',
    surface: 'v2',
    method: 'PUT',
    path: '/assets/{id}',
    auth: 'scope',
    scope: 'assets:write',
    summary: 'Update an asset',
    asset: assetParam,
    params: IdParams,
    body: AssetUpdate,
    response: Asset,
  }),
  'assets.delete': defineRoute({
    name: 'assets.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/assets/{id}',
    auth: 'scope',
    scope: 'assets:write',
    summary: 'Remove an asset',
    asset: assetParam,
    params: IdParams,
    response: Asset,
  }),
} satisfies Record<string, RouteContract>;
