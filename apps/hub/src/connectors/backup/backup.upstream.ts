/**
 * Proxmox Backup Server's answers, only the fields the hub reads. A store that cannot be read has `error` and
 * no sizes; `backup-id` is a string even for VMIDs; `last-backup` is an epoch (shared/design/upstreams.md §3);
 * groups come per namespace (`ns`); a store in maintenance carries its mode on the datastore list.
 */
import { Type, type Static } from 'typebox';

export const PbsDatastores = Type.Object({
  data: Type.Array(
    Type.Object({
      store: Type.String(),
      comment: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      /** The `maintenance-mode` property string: `type=read-only`, `type=offline,message=<percent-encoded>`. */
      maintenance: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    }),
  ),
});

/** `/admin/datastore/{store}/namespace` (PBS 2.2+): every namespace, recursively, the root as `""`. */
export const PbsNamespaces = Type.Object({
  data: Type.Array(Type.Object({ ns: Type.String() })),
});

/** `/access/permissions`: ACL path → privilege → whether it propagates (PBS sends booleans, PVE 0/1). */
export const PbsPermissions = Type.Object({
  data: Type.Record(Type.String(), Type.Record(Type.String(), Type.Union([Type.Boolean(), Type.Number()]))),
});

export const PbsUsage = Type.Object({
  data: Type.Array(
    Type.Object({
      store: Type.String(),
      total: Type.Optional(Type.Number()),
      used: Type.Optional(Type.Number()),
      avail: Type.Optional(Type.Number()),
      error: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      'estimated-full-date': Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    }),
  ),
});
export type PbsUsage = Static<typeof PbsUsage>['data'][number];

export const PbsGroups = Type.Object({
  data: Type.Array(
    Type.Object({
      'backup-type': Type.String(),
      'backup-id': Type.String(),
      'last-backup': Type.Optional(Type.Union([Type.Number(), Type.Null()])),
      'backup-count': Type.Number(),
      owner: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    }),
  ),
});
export type PbsGroup = Static<typeof PbsGroups>['data'][number];
