/**
 * A fake TrueNAS, faithful to the parts the hub reads (../shared/design/upstreams.md §2, api.truenas.com):
 * - 25.04 and later: `GET /api/versions` and JSON-RPC 2.0 over a WebSocket at `/api/current` (or a versioned
 *   `/api/v25.04.0`), `auth.login_with_api_key` / `auth.login_ex`, `pool.query`, `pool.dataset.query` with
 *   `limit`/`offset` and `extra.flat` (default true: every dataset at top level, and its `children`);
 * - the REST API v2.0 (`/api/v2.0/pool`, `/api/v2.0/pool/dataset`, `Authorization: Bearer <id>-<secret>`) on
 *   every release before 26, and 404 once it was removed;
 * - CORE 13 and SCALE 24.10: REST only (`/api/versions` is 404, no `/api/current`).
 * Dataset properties are ZFS property objects `{parsed, rawvalue, value, source, source_info}`.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  startUpstreamServer,
  type FakeAnswer,
  type FakeRequest,
  type FakeUpstreamServer,
} from './upstream-server.js';

/** Release lines whose API differs: 24.10 has REST only, 25.10 both, 26.04 JSON-RPC only. */
export type TruenasRelease = '24.10' | '25.10' | '26.04';

export interface FakeTruenasOptions {
  release?: TruenasRelease;
  /** The key the fake accepts, `<id>-<secret>`. */
  apiKey?: string;
  /** How long the `slow` failure holds an answer. */
  slowMs?: number;
}

export interface FakeTruenas extends FakeUpstreamServer {
  release: TruenasRelease;
  apiKey: string;
  /** JSON-RPC methods called, in order (login included). */
  calls: string[];
  pools: TruenasPoolFixture[];
  datasets: TruenasDatasetFixture[];
}

export interface TruenasPoolFixture {
  id: number;
  name: string;
  status: string;
  healthy: boolean;
  size: number;
  allocated: number;
  free: number;
}

export interface TruenasDatasetFixture {
  id: string;
  type: 'FILESYSTEM' | 'VOLUME';
  used: number;
  available: number;
  encrypted?: boolean;
  locked?: boolean;
}

const TB = 1_000_000_000_000;
const GB = 1_000_000_000;

export function defaultTruenasPools(): TruenasPoolFixture[] {
  return [
    { id: 1, name: 'tank', status: 'ONLINE', healthy: true, size: 8 * TB, allocated: 3 * TB, free: 5 * TB },
    {
      id: 2,
      name: 'backup',
      status: 'DEGRADED',
      healthy: false,
      size: 4 * TB,
      allocated: 3.5 * TB,
      free: 0.5 * TB,
    },
  ];
}

export function defaultTruenasDatasets(): TruenasDatasetFixture[] {
  return [
    { id: 'tank', type: 'FILESYSTEM', used: 3 * TB, available: 4.7 * TB },
    { id: 'tank/media', type: 'FILESYSTEM', used: 2.2 * TB, available: 4.7 * TB },
    { id: 'tank/apps', type: 'FILESYSTEM', used: 120 * GB, available: 4.7 * TB },
    { id: 'tank/vm-disk', type: 'VOLUME', used: 64 * GB, available: 4.7 * TB },
    { id: 'backup', type: 'FILESYSTEM', used: 3.4 * TB, available: 0.4 * TB },
    {
      id: 'backup/vault',
      type: 'FILESYSTEM',
      used: 1.1 * TB,
      available: 0.4 * TB,
      encrypted: true,
      locked: true,
    },
  ];
}

/** `1.2T`, as ZFS prints a size in a property's `value`. */
function humanSize(bytes: number): string {
  const units = ['B', 'K', 'M', 'G', 'T', 'P'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value >= 100 || unit === 0 ? 0 : 1)}${units[unit] ?? 'B'}`;
}

function sizeProperty(bytes: number, source = 'NONE') {
  return { parsed: bytes, rawvalue: String(bytes), value: humanSize(bytes), source, source_info: null };
}

function textProperty(value: string, source = 'DEFAULT') {
  return { parsed: value, rawvalue: value, value, source, source_info: null };
}

function poolRecord(p: TruenasPoolFixture) {
  return {
    id: p.id,
    name: p.name,
    guid: String(10_000_000_000_000_000 + p.id * 7919),
    path: `/mnt/${p.name}`,
    status: p.status,
    scan: p.healthy
      ? {
          function: 'SCRUB',
          state: 'FINISHED',
          start_time: { $date: 1_764_000_000_000 },
          end_time: { $date: 1_764_003_600_000 },
          errors: 0,
        }
      : null,
    expand: null,
    is_upgraded: true,
    healthy: p.healthy,
    warning: !p.healthy,
    status_code: p.healthy ? 'HEALTHY' : 'DEGRADED',
    status_detail: p.healthy ? null : 'One or more devices has been removed by the administrator.',
    size: p.size,
    allocated: p.allocated,
    free: p.free,
    freeing: 0,
    dedup_table_size: 0,
    dedup_table_quota: 'auto',
    fragmentation: '3',
    size_str: String(p.size),
    allocated_str: String(p.allocated),
    free_str: String(p.free),
    freeing_str: '0',
    autotrim: { parsed: 'off', rawvalue: 'off', source: 'DEFAULT', value: 'off' },
    topology: { data: [], log: [], cache: [], spare: [], special: [], dedup: [] },
  };
}

function datasetRecord(d: TruenasDatasetFixture, all: readonly TruenasDatasetFixture[]) {
  const pool = d.id.split('/')[0] ?? d.id;
  const childrenOf = (parent: string): unknown[] =>
    all
      .filter((c) => c.id.startsWith(`${parent}/`) && !c.id.slice(parent.length + 1).includes('/'))
      .map((c) => datasetRecord(c, all));
  return {
    id: d.id,
    type: d.type,
    name: d.id,
    pool,
    encrypted: d.encrypted ?? false,
    encryption_root: d.encrypted ? d.id : null,
    key_loaded: !(d.locked ?? false),
    locked: d.locked ?? false,
    mountpoint: d.type === 'VOLUME' || d.locked ? null : `/mnt/${d.id}`,
    children: childrenOf(d.id),
    used: sizeProperty(d.used),
    available: sizeProperty(d.available),
    usedbydataset: sizeProperty(d.used),
    compression: textProperty('LZ4', 'INHERITED'),
    readonly: textProperty('OFF'),
    quota: sizeProperty(0, 'DEFAULT'),
    ...(d.type === 'VOLUME' ? { volsize: sizeProperty(d.used, 'LOCAL') } : {}),
    user_properties: {},
  };
}

interface QueryOptions {
  limit?: number;
  offset?: number;
  extra?: { flat?: boolean; properties?: string[] };
}

function readOptions(value: unknown): QueryOptions {
  return typeof value === 'object' && value !== null ? value : {};
}

function page<T>(items: T[], options: QueryOptions): T[] {
  const offset = options.offset ?? 0;
  return options.limit ? items.slice(offset, offset + options.limit) : items.slice(offset);
}

/** Keeps only the asked ZFS properties (the structural fields stay), as `extra.properties` does. */
function withProperties(record: Record<string, unknown>, properties: string[] | undefined) {
  if (!properties) return record;
  const structural = new Set([
    'id',
    'type',
    'name',
    'pool',
    'encrypted',
    'encryption_root',
    'key_loaded',
    'locked',
    'mountpoint',
    'children',
    'user_properties',
  ]);
  return Object.fromEntries(
    Object.entries(record).filter(([k]) => structural.has(k) || properties.includes(k)),
  );
}

export async function startFakeTruenas(options: FakeTruenasOptions = {}): Promise<FakeTruenas> {
  const release = options.release ?? '25.10';
  const apiKey = options.apiKey ?? '1-fakeTrueNASkey0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN';
  const pools = defaultTruenasPools();
  const datasets = defaultTruenasDatasets();
  const calls: string[] = [];
  const hasJsonRpc = release !== '24.10';
  const hasRest = release !== '26.04';

  const queryPools = (opts: QueryOptions) => page(pools.map(poolRecord), opts);
  const queryDatasets = (opts: QueryOptions) => {
    const flat = opts.extra?.flat ?? true;
    const roots = flat ? datasets : datasets.filter((d) => !d.id.includes('/'));
    return page(
      roots.map((d) => withProperties(datasetRecord(d, datasets), opts.extra?.properties)),
      opts,
    );
  };

  const rest = (request: FakeRequest): FakeAnswer => {
    const { path: pathname, query } = request;
    if (pathname === '/api/versions') {
      return hasJsonRpc
        ? {
            status: 200,
            body: ['v25.04.0', 'v25.04.1', 'v25.04.2', 'v25.10.0', ...(release === '26.04' ? ['v26.0'] : [])],
          }
        : { status: 404, body: '404: Not Found', contentType: 'text/plain' };
    }
    if (!pathname.startsWith('/api/v2.0/') || !hasRest)
      return { status: 404, body: { message: 'Not Found' } };
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      return { status: 401, body: 'Invalid API key', contentType: 'text/plain' };
    }
    const limit = Number(query.get('limit') ?? 0) || undefined;
    const offset = Number(query.get('offset') ?? 0) || undefined;
    const opts: QueryOptions = {
      ...(limit ? { limit } : {}),
      ...(offset ? { offset } : {}),
      extra: query.get('extra.flat') === 'false' ? { flat: false } : {},
    };
    if (request.method !== 'GET') return { status: 405, body: { message: 'Method Not Allowed' } };
    if (pathname === '/api/v2.0/pool') return { status: 200, body: queryPools(opts) };
    if (pathname === '/api/v2.0/pool/dataset') return { status: 200, body: queryDatasets(opts) };
    return { status: 404, body: { message: 'Not Found' } };
  };

  const fake = (await startUpstreamServer({
    handle: rest,
    // The version probe needs no credential and is not the API: the failure modes are about the API itself.
    exempt: (request) => request.path === '/api/versions',
    ...(options.slowMs ? { slowMs: options.slowMs } : {}),
    failures: {
      unauthorized: { status: 401, body: '' },
      server_error: {
        status: 500,
        body: {
          message: '[EFAULT] Failed to connect to middlewared',
          traceback: 'Traceback (most recent call last): …',
        },
      },
    },
  })) as FakeTruenas;
  Object.assign(fake, { release, apiKey, calls, pools, datasets });

  const wss = new WebSocketServer({ noServer: true });
  fake.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'https://fake.invalid').pathname;
    const versioned = /^\/api\/v\d+(\.\d+)*$/.test(path);
    if (!hasJsonRpc || (path !== '/api/current' && !versioned)) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    if (fake.mode() === 'server_error') {
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      serveJsonRpc(ws);
    });
  });

  function serveJsonRpc(ws: WebSocket): void {
    let authenticated = false;
    ws.on('message', (raw: Buffer) => {
      const reply = (message: unknown): void => {
        const send = (): void => {
          if (ws.readyState !== ws.OPEN) return;
          ws.send(fake.mode() === 'malformed' ? '{"jsonrpc": "2.0", "id": ' : JSON.stringify(message));
        };
        if (fake.mode() === 'slow') setTimeout(send, options.slowMs ?? 30_000);
        else send();
      };
      let request: { id?: unknown; method?: unknown; params?: unknown };
      try {
        request = JSON.parse(raw.toString('utf8')) as typeof request;
      } catch {
        reply({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        return;
      }
      const id = request.id ?? null;
      const method = typeof request.method === 'string' ? request.method : '';
      const params = Array.isArray(request.params) ? (request.params as unknown[]) : [];
      calls.push(method);
      const methodError = (errno: number, errname: string, reason: string) => ({
        jsonrpc: '2.0',
        id,
        error: {
          code: -32001,
          message: 'Method call error',
          data: { error: errno, errname, reason, trace: null, extra: [], py_exception: null },
        },
      });
      const badKey = fake.mode() === 'unauthorized';
      switch (method) {
        case 'auth.login_with_api_key':
          authenticated = !badKey && params[0] === apiKey;
          reply({ jsonrpc: '2.0', id, result: authenticated });
          return;
        case 'auth.login_ex': {
          const body = (params[0] ?? {}) as { mechanism?: string; api_key?: string; username?: string };
          authenticated =
            !badKey && body.mechanism === 'API_KEY_PLAIN' && body.api_key === apiKey && !!body.username;
          reply({ jsonrpc: '2.0', id, result: { response_type: authenticated ? 'SUCCESS' : 'AUTH_ERR' } });
          return;
        }
        case 'pool.query':
        case 'pool.dataset.query':
          if (!authenticated) {
            reply(methodError(13, 'EACCES', 'Not authenticated'));
            return;
          }
          if (fake.mode() === 'server_error') {
            reply(methodError(14, 'EFAULT', '[EFAULT] Failed to query ZFS'));
            return;
          }
          reply({
            jsonrpc: '2.0',
            id,
            result:
              method === 'pool.query'
                ? queryPools(readOptions(params[1]))
                : queryDatasets(readOptions(params[1])),
          });
          return;
        default:
          reply({ jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } });
      }
    });
  }

  const closeServer = fake.close.bind(fake);
  fake.close = async () => {
    for (const client of wss.clients) client.terminate();
    wss.close();
    await closeServer();
  };
  return fake;
}
