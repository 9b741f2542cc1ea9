/**
 * A fake Proxmox VE API (`/api2/json`), from its API viewer and pve-http-server's behaviour: the
 * `PVEAPIToken=USER@REALM!TOKENID=SECRET` header (a space after the name accepted), the `{data}` envelope, 401
 * with an empty body and the reason in the status line, errors as the reason phrase with
 * `{"data":null,"message":…}`, booleans as 0/1 integers, a standalone node without a cluster entry, LXC
 * `vmid` as a string like releases before 2024 (switchable), asynchronous start/stop returning a UPID whose
 * task ends `OK` or with the exit status a test chooses, and Ceph status (500 when Ceph is not installed).
 */
import {
  startUpstreamServer,
  type FakeAnswer,
  type FakeRequest,
  type FakeUpstreamServer,
} from './upstream-server.js';

export interface FakePveGuest {
  vmid: number;
  type: 'qemu' | 'lxc';
  node: string;
  name: string;
  status: 'running' | 'stopped';
  template?: boolean;
}

export interface FakePveOptions {
  /** The token the fake accepts, as the hub stores it: `USER@REALM!TOKENID=SECRET`. */
  token: string;
  /** A cluster name, or null for a standalone node. */
  cluster?: string | null;
  nodes?: { name: string; online: boolean; ip: string }[];
  guests?: FakePveGuest[];
  /** Storage per node: `local` and `local-zfs` by default. */
  storage?: { node: string; storage: string; shared?: boolean; used: number; total: number }[];
  ceph?: boolean;
  /** Serve LXC `vmid` as a string, as pve-container did before Dec 2023. */
  lxcVmidAsString?: boolean;
}

export interface FakeProxmox {
  server: FakeUpstreamServer;
  url: string;
  guests: FakePveGuest[];
  /** The next task ends with this exit status instead of `OK` (and does not change the guest). */
  failNextTask(exitstatus: string): void;
  /** Polls a task reports `running` before it stops (default 1). */
  taskPolls: number;
  close(): Promise<void>;
}

const json = (data: unknown): FakeAnswer => ({ status: 200, body: { data } });
/** pve-http-server: the message is the reason phrase; a JSON body with `data: null` beside it. */
const pveError = (status: number, message: string): FakeAnswer => ({
  status,
  statusText: message,
  body: { data: null, message: `${message}\n` },
});

function tokenOf(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^PVEAPIToken[= ](.+)$/.exec(header);
  if (!match?.[1]) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

export async function startFakeProxmox(options: FakePveOptions): Promise<FakeProxmox> {
  const nodes = options.nodes ?? [{ name: 'pve1', online: true, ip: '192.0.2.11' }];
  const guests: FakePveGuest[] = options.guests ?? [
    { vmid: 100, type: 'qemu', node: 'pve1', name: 'web', status: 'running' },
    { vmid: 101, type: 'lxc', node: 'pve1', name: 'dns', status: 'stopped' },
  ];
  const storage: { node: string; storage: string; shared?: boolean; used: number; total: number }[] =
    options.storage ??
    nodes.flatMap((n) => [
      { node: n.name, storage: 'local', used: 12e9, total: 100e9 },
      { node: n.name, storage: 'local-zfs', used: 40e9, total: 400e9 },
    ]);
  const cluster = options.cluster === undefined ? null : options.cluster;
  const tasks = new Map<
    string,
    { polls: number; exitstatus: string; node: string; type: string; id: string }
  >();
  let nextFailure: string | null = null;
  let taskCounter = 0;
  const fake: Omit<FakeProxmox, 'server' | 'url' | 'close'> = {
    guests,
    failNextTask(exitstatus) {
      nextFailure = exitstatus;
    },
    taskPolls: 1,
  };

  function clusterStatus(): unknown[] {
    const entries: unknown[] = nodes.map((n, index) => ({
      type: 'node',
      id: `node/${n.name}`,
      name: n.name,
      ip: n.ip,
      level: '',
      local: index === 0 ? 1 : 0,
      // A standalone node reports nodeid 0 and no cluster entry.
      nodeid: cluster === null ? 0 : index + 1,
      online: n.online ? 1 : 0,
    }));
    if (cluster !== null) {
      entries.unshift({
        type: 'cluster',
        id: 'cluster',
        name: cluster,
        nodes: nodes.length,
        quorate: 1,
        version: 7,
      });
    }
    return entries;
  }

  function resources(filter: string | null): unknown[] {
    const all: { type: string; entry: unknown }[] = [
      ...nodes.map((n) => ({
        type: 'node',
        entry: {
          id: `node/${n.name}`,
          type: 'node',
          node: n.name,
          status: n.online ? 'online' : 'offline',
          cpu: 0.0712,
          maxcpu: 8,
          mem: 6_442_450_944,
          maxmem: 33_554_432_000,
          disk: 9_663_676_416,
          maxdisk: 100_861_726_720,
          uptime: 864_000,
          level: '',
          'cgroup-mode': 2,
        },
      })),
      ...guests.map((g) => ({
        type: g.type,
        entry: {
          id: `${g.type}/${String(g.vmid)}`,
          type: g.type,
          vmid: g.type === 'lxc' && options.lxcVmidAsString ? String(g.vmid) : g.vmid,
          node: g.node,
          name: g.name,
          status: g.status,
          template: g.template ? 1 : 0,
          cpu: g.status === 'running' ? 0.0231 : 0,
          // LXC with a fractional CPU limit reports a float.
          maxcpu: g.type === 'lxc' ? 1.5 : 2,
          mem: g.status === 'running' ? 1_073_741_824 : 0,
          maxmem: 2_147_483_648,
          disk: g.type === 'lxc' ? 1_288_490_188 : 0,
          maxdisk: 34_359_738_368,
          uptime: g.status === 'running' ? 3600 : 0,
          netin: 1000,
          netout: 2000,
          diskread: 0,
          diskwrite: 0,
        },
      })),
      ...storage.map((s) => ({
        type: 'storage',
        entry: {
          id: `storage/${s.node}/${s.storage}`,
          type: 'storage',
          node: s.node,
          storage: s.storage,
          status: 'available',
          plugintype: s.storage === 'local' ? 'dir' : 'zfspool',
          shared: s.shared ? 1 : 0,
          content: 'images,rootdir',
          disk: s.used,
          maxdisk: s.total,
        },
      })),
      { type: 'pool', entry: { id: '/pool/lab', type: 'pool', pool: 'lab' } },
      {
        type: 'sdn',
        entry: {
          id: `sdn/${nodes[0]?.name ?? 'pve1'}/localnetwork`,
          type: 'sdn',
          sdn: 'localnetwork',
          status: 'ok',
          node: nodes[0]?.name,
        },
      },
    ];
    // `type=vm` is a filter: entries still say qemu or lxc.
    const wanted = (type: string) =>
      filter === null || (filter === 'vm' ? type === 'qemu' || type === 'lxc' : type === filter);
    return all.filter((r) => wanted(r.type)).map((r) => r.entry);
  }

  function cephStatus(): unknown {
    return {
      fsid: '5f8b4e2c-0000-4000-8000-000000000001',
      health: {
        status: 'HEALTH_WARN',
        checks: {
          OSD_NEARFULL: {
            severity: 'HEALTH_WARN',
            summary: { message: '1 nearfull osd(s)', count: 1 },
            muted: false,
          },
        },
        mutes: [],
      },
      election_epoch: 12,
      quorum: [0, 1, 2],
      quorum_names: nodes.map((n) => n.name),
      monmap: { epoch: 3, min_mon_release_name: 'squid', num_mons: nodes.length },
      osdmap: {
        epoch: 120,
        num_osds: 6,
        num_up_osds: 6,
        osd_up_since: 1_732_000_000,
        num_in_osds: 5,
        num_remapped_pgs: 0,
      },
      pgmap: {
        pgs_by_state: [
          { state_name: 'active+clean', count: 127 },
          { state_name: 'active+clean+scrubbing', count: 2 },
        ],
        num_pools: 3,
        num_objects: 41_200,
        data_bytes: 160_000_000_000,
        bytes_used: 480_000_000_000,
        bytes_avail: 1_520_000_000_000,
        bytes_total: 2_000_000_000_000,
        num_pgs: 129,
      },
      mgrmap: { available: true, num_standbys: 2 },
    };
  }

  function startTask(node: string, guest: FakePveGuest, action: string): FakeAnswer {
    const kind = guest.type === 'qemu' ? `qm${action}` : `vz${action}`;
    if (action === 'start' && guest.status === 'running') {
      return pveError(500, `VM ${String(guest.vmid)} already running`);
    }
    taskCounter += 1;
    const hex = (n: number, width: number) => n.toString(16).toUpperCase().padStart(width, '0');
    const user = options.token.split('=')[0] ?? 'root@pam';
    const upid = `UPID:${node}:${hex(4000 + taskCounter, 8)}:${hex(90000 + taskCounter, 8)}:${hex(Math.floor(Date.now() / 1000), 8)}:${kind}:${String(guest.vmid)}:${user}:`;
    const exitstatus = nextFailure ?? 'OK';
    nextFailure = null;
    tasks.set(upid, { polls: fake.taskPolls, exitstatus, node, type: kind, id: String(guest.vmid) });
    if (exitstatus === 'OK') guest.status = action === 'start' ? 'running' : 'stopped';
    return json(upid);
  }

  function handle(request: FakeRequest): FakeAnswer {
    if (tokenOf(request.headers.authorization) !== options.token) {
      // 401: empty body, the reason in the status line (pve-http-server also delays it 3 s).
      return {
        status: 401,
        statusText: request.headers.authorization ? 'Authentication failed!' : 'No ticket',
      };
    }
    const path = request.path.replace(/^\/api2\/json/, '');
    if (request.method === 'GET' && path === '/version')
      return json({ version: '9.1.1', release: '9.1', repoid: 'abc123' });
    if (request.method === 'GET' && path === '/cluster/status') return json(clusterStatus());
    if (request.method === 'GET' && path === '/cluster/resources')
      return json(resources(request.query.get('type')));
    if (request.method === 'GET' && path === '/cluster/ceph/status') {
      return options.ceph ? json(cephStatus()) : pveError(500, 'binary not installed: /usr/bin/ceph-mon');
    }
    const action = /^\/nodes\/([^/]+)\/(qemu|lxc)\/(\d+)\/status\/(start|stop|shutdown)$/.exec(path);
    if (request.method === 'POST' && action) {
      const [, node, type, vmid, verb] = action;
      if (!nodes.some((n) => n.name === node)) return pveError(595, 'No route to host');
      const guest = guests.find((g) => g.type === type && String(g.vmid) === vmid && g.node === node);
      if (!guest) {
        return pveError(
          500,
          `Configuration file 'nodes/${String(node)}/${type === 'qemu' ? 'qemu-server' : 'lxc'}/${String(vmid)}.conf' does not exist`,
        );
      }
      return startTask(String(node), guest, String(verb));
    }
    const taskStatus = /^\/nodes\/([^/]+)\/tasks\/([^/]+)\/status$/.exec(path);
    if (request.method === 'GET' && taskStatus) {
      const upid = decodeURIComponent(taskStatus[2] ?? '');
      const task = tasks.get(upid);
      if (!task) return pveError(500, `no such task`);
      const running = task.polls > 0;
      task.polls -= 1;
      return json({
        upid,
        node: task.node,
        pid: 4000,
        pstart: 90000,
        starttime: Math.floor(Date.now() / 1000),
        type: task.type,
        id: task.id,
        user: options.token.split('=')[0],
        status: running ? 'running' : 'stopped',
        ...(running ? {} : { exitstatus: task.exitstatus }),
      });
    }
    return pveError(501, `Method '${request.method} /api2/json${path}' not implemented`);
  }

  const server = await startUpstreamServer({
    names: ['pve.test'],
    failures: {
      unauthorized: { status: 401, statusText: 'Authentication failed!' },
      server_error: pveError(500, 'internal error'),
    },
    handle,
  });
  return Object.assign(fake, { server, url: server.url(), close: () => server.close() });
}
