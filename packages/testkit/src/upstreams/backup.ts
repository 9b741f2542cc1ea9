/**
 * A fake Proxmox Backup Server API (`/api2/json`), from its API viewer and proxmox-rest-server: the
 * `PBSAPIToken=USER@REALM!TOKENID:SECRET` header (colon before the secret; a PVE-style `=` fails; a space after
 * the name accepted), the `{data}` envelope, error bodies that are bare message text while the content type
 * still says JSON, a store that cannot be read reported with `error` and no sizes, `null` history entries,
 * and groups of the root namespace with `last-backup` epochs and string `backup-id`s.
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
}

export interface FakePbsStore {
  store: string;
  comment?: string;
  total?: number;
  used?: number;
  /** A store that cannot be read: listed with this error and no sizes. */
  error?: string;
  groups: FakePbsGroup[];
}

export interface FakePbsOptions {
  /** As the hub stores it: `USER@REALM!TOKENID:SECRET`. */
  token: string;
  stores?: FakePbsStore[];
}

export interface FakeBackupServer {
  server: FakeUpstreamServer;
  url: string;
  stores: FakePbsStore[];
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
      ],
    },
    {
      store: 'offsite',
      total: 2_000_000_000_000,
      used: 400_000_000_000,
      groups: [{ type: 'vm', id: '100', lastBackup: now - 7 * day, count: 4 }],
    },
    {
      store: 'usb',
      error:
        'unable to open chunk store at "/mnt/datastore/usb/.chunks" - No such file or directory (os error 2)',
      groups: [],
    },
  ];
}

function tokenOf(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^PBSAPIToken[= ](.+)$/.exec(header);
  return match?.[1] ?? null;
}

export async function startFakeBackupServer(options: FakePbsOptions): Promise<FakeBackupServer> {
  const stores = options.stores ?? defaultPbsStores();

  function handle(request: FakeRequest): FakeAnswer {
    const presented = tokenOf(request.headers.authorization);
    // The official client sends `PBSAPIToken id:secret` (a space): the same token either way.
    if (presented !== options.token)
      return pbsError(401, 'Unauthorized', 'authentication failed - invalid token');
    const path = request.path.replace(/^\/api2\/json/, '');
    if (request.method !== 'GET') return pbsError(405, 'Method Not Allowed', 'method not allowed');
    if (path === '/version') return json({ version: '4.0.14', release: '4.0', repoid: 'f00dfeed' });
    if (path === '/admin/datastore') {
      return json(
        stores.map((s) => ({
          store: s.store,
          ...(s.comment ? { comment: s.comment } : {}),
          'mount-status': 'nonremovable',
          'backend-type': 'filesystem',
        })),
      );
    }
    if (path === '/status/datastore-usage') {
      return json(
        stores.map((s) =>
          s.error !== undefined || s.total === undefined || s.used === undefined
            ? {
                store: s.store,
                error: s.error ?? 'unknown error',
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
    const groups = /^\/admin\/datastore\/([^/]+)\/groups$/.exec(path);
    if (groups) {
      const store = stores.find((s) => s.store === decodeURIComponent(groups[1] ?? ''));
      if (!store) return pbsError(404, 'Not Found', `datastore '${String(groups[1])}' does not exist`);
      if (store.error !== undefined) return pbsError(400, 'Bad Request', store.error);
      return json(
        store.groups.map((g) => ({
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
  return { server, url: server.url(), stores, close: () => server.close() };
}
