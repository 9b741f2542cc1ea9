/**
 * Proxmox VE's answers, only the fields the hub reads. Booleans arrive as 0/1 integers, some numbers as strings
 * (LXC `vmid` before 2024), `maxcpu` as a float for LXC: the schemas accept what the API really sends and the
 * mapping coerces. Envelope `{data}` (docs/decisions/0022-connectors.md; shared/design/upstreams.md §1).
 */
import { Type, type Static, type TSchema } from 'typebox';

const Flag = Type.Union([Type.Integer(), Type.Boolean()]);
const Num = Type.Union([Type.Number(), Type.String()]);
const Opt = <T extends TSchema>(t: T) => Type.Optional(Type.Union([t, Type.Null()]));

export const PveClusterEntry = Type.Object({
  type: Type.String(),
  id: Type.Optional(Type.String()),
  name: Type.String(),
  ip: Opt(Type.String()),
  local: Opt(Flag),
  nodeid: Opt(Num),
  online: Opt(Flag),
  quorate: Opt(Flag),
  nodes: Opt(Num),
  version: Opt(Num),
});
export type PveClusterEntry = Static<typeof PveClusterEntry>;
export const PveClusterStatus = Type.Object({ data: Type.Array(PveClusterEntry) });

export const PveResource = Type.Object({
  id: Type.String(),
  type: Type.String(),
  node: Opt(Type.String()),
  name: Opt(Type.String()),
  storage: Opt(Type.String()),
  status: Opt(Type.String()),
  vmid: Opt(Num),
  cpu: Opt(Num),
  maxcpu: Opt(Num),
  mem: Opt(Num),
  maxmem: Opt(Num),
  disk: Opt(Num),
  maxdisk: Opt(Num),
  uptime: Opt(Num),
  template: Opt(Flag),
  shared: Opt(Flag),
});
export type PveResource = Static<typeof PveResource>;
export const PveResources = Type.Object({ data: Type.Array(PveResource) });

/** A start or stop answers the task's UPID. */
export const PveUpid = Type.Object({ data: Type.String({ pattern: '^UPID:' }) });

export const PveTaskStatus = Type.Object({
  data: Type.Object({
    status: Type.String(),
    exitstatus: Opt(Type.String()),
    upid: Opt(Type.String()),
  }),
});
export type PveTaskStatus = Static<typeof PveTaskStatus>['data'];

const CephCount = Type.Optional(Num);
/** Raw `ceph status` JSON; reef nests `osdmap.osdmap`, squid has no `monmap.mons`. */
export const PveCephStatus = Type.Object({
  data: Type.Object({
    health: Type.Object({
      status: Type.String(),
      checks: Type.Optional(
        Type.Record(
          Type.String(),
          Type.Object({
            severity: Type.String(),
            summary: Type.Optional(Type.Object({ message: Type.Optional(Type.String()) })),
          }),
        ),
      ),
    }),
    osdmap: Type.Optional(
      Type.Object({
        num_osds: CephCount,
        num_up_osds: CephCount,
        num_in_osds: CephCount,
        osdmap: Type.Optional(
          Type.Object({ num_osds: CephCount, num_up_osds: CephCount, num_in_osds: CephCount }),
        ),
      }),
    ),
    pgmap: Type.Optional(
      Type.Object({
        num_pgs: CephCount,
        pgs_by_state: Type.Optional(Type.Array(Type.Object({ state_name: Type.String(), count: Num }))),
        bytes_used: CephCount,
        bytes_avail: CephCount,
        bytes_total: CephCount,
      }),
    ),
    monmap: Type.Optional(
      Type.Object({ num_mons: CephCount, mons: Type.Optional(Type.Array(Type.Unknown())) }),
    ),
    quorum_names: Type.Optional(Type.Array(Type.String())),
  }),
});
export type PveCephStatus = Static<typeof PveCephStatus>['data'];
