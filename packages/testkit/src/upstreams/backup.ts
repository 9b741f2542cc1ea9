/**
 * A fake Proxmox Backup Server API (`/api2/json`), from its API viewer and proxmox-rest-server: the
 * `PBSAPIToken=USER@REALM!TOKENID:SECRET` header (colon before the secret; a PVE-style `=` fails; a space after
 * the name accepted), the `{data}` envelope, error bodies that are bare message text while the content type
 * still says JSON, a store that cannot be read reported with `error` and no sizes, `null` history entries,
 * and groups with `last-backup` epochs and string `backup-id`s. Namespaces (PBS 2.2+) as proxmox-backup's
 * `list_namespaces` answers them (recursive, the root `""` included) and groups read per `ns`; a store's
 * `maintenance` property string on the datastore list, an offline store failing every read with `datastore
 * 'x' is unavailable: offline maintenance mode: <message>`; and the token's ACL: stores it may not audit are
 * left out of the lists silently (an empty list, no error), and `/access/permissions` maps each ACL path
 * (plus `/`, `/access`, `/datastore`, `/remote`, `/system`) to its privileges, paths without any left out.
 */
import {
  startUpstreamServer,
  type FakeAnswer,
  type FakeRequest,
  type FakeUpstreamServer,
} from './upstream-server.js';

export interface FakePbsGroup {
  type: 'vm' | 'ct' | 'host';
  id: string;
  lastBackup: number;
  count: number;
  /** The namespace path (`cluster-a`, `cluster-a/daily`); the root namespace when absent. */
  ns?: string;
}

/** One ACL entry of the token (propagating, as the GUI sets them). */
export interface FakePbsAcl {
  path: string;
  privs: string[];
}

export interface FakePbsStore {
  store: string;
  comment?: string;
  total?: number;
  used?: number;
  /** A store that cannot be read: listed with this error and no sizes. */
  error?: string;
  /**
   * The datastore config's `maintenance-mode` property string, as PBS stores and lists it: `type=read-only`,
   * or `type=offline,message=<percent-encoded text>`.
   */
  maintenance?: string;
  /** Namespaces without groups of their own (those of the groups exist anyway). */
  namespaces?: string[];
  groups: FakePbsGroup[];
}

export interface FakePbsOptions {
  /** As the hub stores it: `USER@REALM!TOKENID:SECRET`. */
  token: string;
  stores?: FakePbsStore[];
  /** The token's effective ACL. Default: `Datastore.Audit` on `/datastore` (the DatastoreAudit role). */
  acl?: FakePbsAcl[];
}

export interface FakeBackupServer {
  server: FakeUpstreamServer;
  url: string;
  stores: FakePbsStore[];
  /** The token's ACL, changeable while the fake runs. */
  acl: FakePbsAcl[];
  close(): Promise<void>;
}

const json = (data: unknown): FakeAnswer => ({ status: 200, body: { data } });
/** PBS error bodies are the message text, under a JSON content type. */
const pbsError = (status: number, statusText: string, message: string): FakeAnswer => ({
  status,
  statusText,
  body: message,
});

const day = 86_400;

export function defaultPbsStores(now = Math.floor(Date.now() / 1000)): FakePbsStore[] {
  return [
    {
      store: 'main',
      comment: 'primary pool',
      total: 4_000_000_000_000,
      used: 1_250_000_000_000,
      groups: [
        { type: 'vm', id: '100', lastBackup: now - day / 2, count: 14 },
        { type: 'ct', id: '101', lastBackup: now - day, count: 14 },
        { type: 'host', id: 'nas', lastBackup: now - 3 * day, count: 5 },
        // A second cluster backs up into its own namespace (VMIDs repeat across clusters).
        { type: 'vm', id: '200', ns: 'cluster-b', lastBackup: now - 2 * day, count: 6 },
      ],
    },
    {
      store: 'offsite',
      total: 2_000_000_000_000,
      used: 400_000_000_000,
      maintenance: 'type=read-only',
      groups: [{ type: 'vm', id: '100', lastBackup: now - 7 * day, count: 4 }],
    },
    {
      store: 'usb',
      error:
        'unable to open chunk store at "/mnt/datastore/usb/.chunks" - No such file or directory (os error 2)',
      groups: [],
    },
    {
      store: 'archive',
      total: 8_000_000_000_000,
      used: 6_000_000_000_000,
      maintenance: 'type=offline,message=disk%20swap%20until%20Monday',
      groups: [{ type: 'vm', id: '100', lastBackup: now - 30 * day, count: 2 }],
    },
  ];
}

/** Whether `path` is `ancestor` or lies below it (`/` is above everything). */
function within(path: string, ancestor: string): boolean {
  return ancestor === '/' || path === ancestor || path.startsWith(`${ancestor}/`);
}

/** `type=offline,message=disk%20swap` → its type and decoded message (PBS percent-encodes the message). */
function maintenanceOf(value: string): { type: string; message: string } {
  const fields = new Map<string, string>();
  for (const part of value.split(',')) {
    const [key, ...rest] = part.split('=');
    if (rest.length === 0) fields.set('type', key ?? '');
    else fields.set(key ?? '', rest.join('='));
  }
  return { type: fields.get('type') ?? '', message: decodeURIComponent(fields.get('message') ?? '') };
}

function tokenOf(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^PBSAPIToken[= ](.+)$/.exec(header);
  return match?.[1] ?? null;
}

export async function startFakeBackupServer(options: FakePbsOptions): Promise<FakeBackupServer> {
  const stores = options.stores ?? defaultPbsStores();
  const acl = options.acl ?? [{ path: '/datastore', privs: ['Datastore.Audit'] }];

  /** The token's privileges on an ACL path: those of every entry on it or above it. */
  function privsAt(path: string): Set<string> {
    return new Set(acl.filter((entry) => within(path, entry.path)).flatMap((entry) => entry.privs));
  }
  const mayList = (privs: Set<string>) => privs.has('Datastore.Audit') || privs.has('Datastore.Backup');
  /** PBS lists a store the token may audit or back up to, and one where it holds a namespace's ACL. */
  const visible = (store: FakePbsStore) =>
    mayList(privsAt(`/datastore/${store.store}`)) ||
    acl.some((entry) => entry.path.startsWith(`/datastore/${store.store}/`) && mayList(new Set(entry.privs)));
  /** lookup_datastore's refusal of an offline store, as every read of it answers. */
  function offline(store: FakePbsStore): string | null {
    if (store.maintenance === undefined) return null;
    const mode = maintenanceOf(store.maintenance);
    return mode.type === 'offline'
      ? `datastore '${store.store}' is unavailable: offline maintenance mode: ${mode.message}`
      : null;
  }
  /** Every namespace of a store, parents included, the root `""` first. */
  function namespacesOf(store: FakePbsStore): string[] {
    const all = new Set<string>(['']);
    for (const ns of [...(store.namespaces ?? []), ...store.groups.map((g) => g.ns ?? '')]) {
      const parts = ns.split('/').filter((p) => p !== '');
      for (let depth = 1; depth <= parts.length; depth += 1) all.add(parts.slice(0, depth).join('/'));
    }
    return [...all].sort();
  }
  /** The store a per-store path names, or the answer that refuses it. */
  function storeFor(name: string): FakePbsStore | FakeAnswer {
    const store = stores.find((s) => s.store === decodeURIComponent(name));
    if (!store) return pbsError(404, 'Not Found', `datastore '${name}' does not exist`);
    if (!mayList(privsAt(`/datastore/${store.store}`)))
      return pbsError(403, 'Forbidden', 'permission check failed');
    const unavailable = offline(store) ?? store.error;
    if (unavailable !== undefined) return pbsError(400, 'Bad Request', unavailable);
    return store;
  }
  const isAnswer = (value: FakePbsStore | FakeAnswer): value is FakeAnswer => 'status' in value;

  function handle(request: FakeRequest): FakeAnswer {
    const presented = tokenOf(request.headers.authorization);
    // The official client sends `PBSAPIToken id:secret` (a space): the same token either way.
    if (presented !== options.token)
      return pbsError(401, 'Unauthorized', 'authentication failed - invalid token');
    const path = request.path.replace(/^\/api2\/json/, '');
    if (request.method !== 'GET') return pbsError(405, 'Method Not Allowed', 'method not allowed');
    if (path === '/version') return json({ version: '4.0.14', release: '4.0', repoid: 'f00dfeed' });
    if (path === '/access/permissions') {
      const paths = new Set(['/', '/access', '/datastore', '/remote', '/system', ...acl.map((e) => e.path)]);
      const map: Record<string, Record<string, boolean>> = {};
      for (const aclPath of paths) {
        const privs = privsAt(aclPath);
        // PBS leaves out the paths the token holds nothing on.
        if (privs.size > 0) map[aclPath] = Object.fromEntries([...privs].map((p) => [p, true]));
      }
      return json(map);
    }
    if (path === '/admin/datastore') {
      return json(
        stores.filter(visible).map((s) => ({
          store: s.store,
          ...(s.comment ? { comment: s.comment } : {}),
          ...(s.maintenance !== undefined ? { maintenance: s.maintenance } : {}),
          'mount-status': 'nonremovable',
          'backend-type': 'filesystem',
        })),
      );
    }
    if (path === '/status/datastore-usage') {
      return json(
        stores.filter(visible).map((s) =>
          offline(s) !== null || s.error !== undefined || s.total === undefined || s.used === undefined
            ? {
                store: s.store,
                error: offline(s) ?? s.error ?? 'unknown error',
                'mount-status': 'nonremovable',
                'backend-type': 'filesystem',
              }
            : {
                store: s.store,
                total: s.total,
                used: s.used,
                avail: s.total - s.used,
                history: [null, 0.29, 0.3, 0.31],
                'history-start': Math.floor(Date.now() / 1000) - 30 * day,
                'history-delta': day,
                'estimated-full-date': Math.floor(Date.now() / 1000) + 200 * day,
                'gc-status': { 'disk-bytes': s.used, 'index-data-bytes': s.used * 3 },
                'mount-status': 'nonremovable',
                'backend-type': 'filesystem',
              },
        ),
      );
    }
    const namespaces = /^\/admin\/datastore\/([^/]+)\/namespace$/.exec(path);
    if (namespaces) {
      const store = storeFor(namespaces[1] ?? '');
      if (isAnswer(store)) return store;
      return json(namespacesOf(store).map((ns) => ({ ns })));
    }
    const groups = /^\/admin\/datastore\/([^/]+)\/groups$/.exec(path);
    if (groups) {
      const store = storeFor(groups[1] ?? '');
      if (isAnswer(store)) return store;
      // Without `ns` PBS reads the root namespace only.
      const ns = request.query.get('ns') ?? '';
      if (!namespacesOf(store).includes(ns))
        return pbsError(400, 'Bad Request', `namespace '${ns}' does not exist`);
      return json(
        store.groups
          .filter((g) => (g.ns ?? '') === ns)
          .map((g) => ({
            'backup-type': g.type,
            'backup-id': g.id,
            'last-backup': g.lastBackup,
            'backup-count': g.count,
            files:
              g.type === 'host'
                ? ['root.pxar.didx', 'index.json.blob']
                : ['drive-scsi0.img.fidx', 'index.json.blob'],
            owner: 'root@pam!hub',
          })),
      );
    }
    return pbsError(404, 'Not Found', `Path '/api2/json${path}' not found.`);
  }

  const server = await startUpstreamServer({
    names: ['pbs.test'],
    failures: {
      unauthorized: { status: 401, statusText: 'Unauthorized' },
      server_error: pbsError(500, 'Internal Server Error', 'internal error'),
    },
    handle,
  });
  return { server, url: server.url(), stores, acl, close: () => server.close() };
}
