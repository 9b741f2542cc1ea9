/** The storage appliance (TrueNAS): pools and datasets of a NAS asset a connector brought. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { IdParams, Maybe, assetParam, literals, paged } from './shared.js';

/** Byte counts as TrueNAS parsed them (`parsed`, never the human `value`); null when the pool is offline. */
const Bytes = Maybe(Type.Number({ minimum: 0 }));

export const NasPool = Type.Object({
  /** TrueNAS's pool id (an integer there), as text. */
  id: Type.String(),
  name: Type.String(),
  /** ZFS state: ONLINE, DEGRADED, FAULTED, OFFLINE, UNAVAIL, REMOVED. */
  status: Type.String(),
  healthy: Type.Boolean(),
  status_detail: Maybe(Type.String()),
  size_bytes: Bytes,
  allocated_bytes: Bytes,
  free_bytes: Bytes,
  /** allocated / size, 0..100, one decimal. */
  used_percent: Maybe(Type.Number()),
  /** The last scrub or resilver: its kind and state (FINISHED, SCANNING, CANCELED), null when never run. */
  last_scan: Maybe(
    Type.Object({ function: Type.String(), state: Type.String(), errors: Maybe(Type.Integer()) }),
  ),
});
export type NasPool = Static<typeof NasPool>;

export const nasDatasetTypes = ['filesystem', 'volume'] as const;

export const NasDataset = Type.Object({
  /** The dataset's path: `tank/media`. */
  id: Type.String(),
  pool: Type.String(),
  type: literals(nasDatasetTypes),
  used_bytes: Bytes,
  available_bytes: Bytes,
  encrypted: Type.Boolean(),
  /** Encrypted and its key not loaded: its contents cannot be read. */
  locked: Type.Boolean(),
  mountpoint: Maybe(Type.String()),
});
export type NasDataset = Static<typeof NasDataset>;

export const NasDatasetQuery = paged(
  Type.Object({ pool: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) }),
);

export const nasContracts = {
  'nas.pools': defineRoute({
    name: 'nas.pools',
    surface: 'v2',
    method: 'GET',
    path: '/nas/assets/{id}/pools',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'TrueNAS pools',
    asset: assetParam,
    params: IdParams,
    query: PaginationQuery,
    response: NasPool,
    list: true,
  }),
  'nas.datasets': defineRoute({
    name: 'nas.datasets',
    surface: 'v2',
    method: 'GET',
    path: '/nas/assets/{id}/datasets',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'TrueNAS datasets',
    description: 'Every dataset once (TrueNAS lists them flat), sorted by path; `pool` filters by pool name.',
    asset: assetParam,
    params: IdParams,
    query: NasDatasetQuery,
    response: NasDataset,
    list: true,
  }),
} satisfies Record<string, RouteContract>;
