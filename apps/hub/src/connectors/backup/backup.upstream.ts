/**
 * Proxmox Backup Server's answers, only the fields the hub reads. A store that cannot be read has `error` and
 * no sizes; `backup-id` is a string even for VMIDs; `last-backup` is an epoch (shared/design/upstreams.md §3).
 */
import { Type, type Static } from 'typebox';

export const PbsDatastores = Type.Object({
  data: Type.Array(
    Type.Object({ store: Type.String(), comment: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
  ),
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
