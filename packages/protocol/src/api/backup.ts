/**
 * Backups (Proxmox Backup Server) through its connector: datastores with usage, maintenance mode, and the last
 * backup per group in every namespace.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, Maybe, NullableTimestamp, assetParam } from './shared.js';

export const BackupGroup = Type.Object({
  /** `vm`, `ct` or `host`. */
  type: Type.String(),
  /** The guest's VMID or the host's name (a string upstream, even for VMIDs). */
  id: Type.String(),
  /** The namespace path (`cluster-b`, `site/daily`); `""` for the root namespace. */
  namespace: Type.String(),
  last_backup_at: NullableTimestamp,
  count: Type.Integer(),
  owner: Maybe(Type.String()),
});
export type BackupGroup = Static<typeof BackupGroup>;

export const BackupMaintenance = Type.Object({
  /** `read-only` (backups refused, reads work) or `offline` (nothing works); newer PBS has more. */
  mode: Type.String(),
  /** The admin's reason, when one was given. */
  message: Maybe(Type.String()),
});
export type BackupMaintenance = Static<typeof BackupMaintenance>;

export const BackupDatastore = Type.Object({
  store: Type.String(),
  comment: Maybe(Type.String()),
  /** The store's maintenance mode; null in normal operation. */
  maintenance: Maybe(BackupMaintenance),
  /** Bytes; null when the store could not be read (see `error`). */
  total: Maybe(Type.Number()),
  used: Maybe(Type.Number()),
  avail: Maybe(Type.Number()),
  error: Maybe(Type.String()),
  estimated_full_at: NullableTimestamp,
  groups: Type.Array(BackupGroup),
});
export type BackupDatastore = Static<typeof BackupDatastore>;

export const BackupDatastores = Type.Object({
  asset_id: Type.String(),
  connector_id: Type.String(),
  datastores: Type.Array(BackupDatastore),
});
export type BackupDatastores = Static<typeof BackupDatastores>;

export const backupContracts = {
  'backup.datastores': defineRoute({
    name: 'backup.datastores',
    surface: 'v2',
    method: 'GET',
    path: '/backup/assets/{id}/datastores',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'Backup datastores with usage, maintenance mode and the last backup of each group',
    asset: assetParam,
    params: IdParams,
    response: BackupDatastores,
  }),
} satisfies Record<string, RouteContract>;
