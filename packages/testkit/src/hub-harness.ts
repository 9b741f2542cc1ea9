/**
 * Starts a real hub (same wiring as main.ts) on a temporary SQLite file, or on a PostgreSQL schema of its own
 * (fresh, or migrated and emptied by an earlier hub of the same test file: pg-schemas.ts), for tests. Requests go through app.inject(): no port is opened.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createHub,
  httpsServerFactory,
  localOwnerContext,
  parseEnv,
  ManualClock,
  silentLogger,
  startServers,
  systemOwnerContext,
  type Hub,
  type HubConfig,
  type HubOptions,
  type PasswordHasher,
  type RunningServers,
} from '@svc/hub';
import type { ApiKeyCreated, AssignableRole } from '@svc/protocol';
import { seedMigratedSqlite } from './sqlite-template.js';
import { markPgSchemaShared, takePgSchema, type PgSchema, type ReusablePgSchema } from './pg-schemas.js';

export interface TestHubOptions {
  /** Use the PostgreSQL at this URL (a fresh schema), instead of SQLite. */
  postgresUrl?: string;
  rateLimit?: Partial<HubConfig['rateLimit']>;
  env?: Record<string, string>;
  clock?: ManualClock;
  /** Listen on real loopback ports (HTTPS and the redirect listener in TLS modes), not only inject(). */
  listen?: boolean;
  /**
   * For hubs in a TLS mode: inject() requests arrive as from a TLS-terminating proxy on loopback
   * (SVC_TRUSTED_PROXIES=127.0.0.1 and X-Forwarded-Proto: https), since inject() has no TLS of its own.
   */
  injectAsHttps?: boolean;
  /**
   * Leave the owner's first run as a user meets it: the generated password, still to be changed, in the
   * credentials file. By default the harness sets a new owner password in-process, as the first sign-in would.
   */
  keepFirstRun?: boolean;
  /** The hub's bcrypt queue (a test's own, to hold checks in it); the hub makes the real one otherwise. */
  passwords?: PasswordHasher;
  /** The web console's files the hub serves (a test's own fixture); apps/web/dist otherwise. */
  consoleDir?: string;
  /** The event stream's limits (small queues, short ping intervals for tests of slow and idle clients). */
  eventStream?: HubOptions['eventStream'];
  /** The egress-guarded client's resolver and trusted CA (fake DNS, a receiver with its own certificate). */
  outbound?: HubOptions['outbound'];
  /** Webhook delivery pacing (short retry delays). */
  webhookDelivery?: HubOptions['webhookDelivery'];
  /** Connector timeouts and periodic check (0 turns the check off; tests call `checkAll()`). */
  connectors?: HubOptions['connectors'];
  /** Prometheus remote-write pacing (intervalMs 0 turns the timer off; tests call `remoteWrite.sendNow()`). */
  remoteWrite?: HubOptions['remoteWrite'];
  /** The hub's cluster bus and node registry (several hubs on one in-memory network); a cluster of one by default. */
  cluster?: HubOptions['cluster'];
  /**
   * With `postgresUrl`: join this schema (made with `createPgSchema`) instead of making one, as the processes
   * of one cluster share a database; the hub leaves it for its maker to drop. The last hub started holds the
   * valid owner key (each start rotates it).
   */
  pgSchema?: string;
  /**
   * Another process of the same hub: this one opens its own data directory on the PostgreSQL schema of
   * `hub` (which must use PostgreSQL), and leaves the schema to it. Its `ownerKey` is an admin key made at
   * start (making an owner token would revoke the other's). Give both the same SVC_ENCRYPTION_KEY in `env`.
   */
  joinDatabaseOf?: TestHub;
}

export interface InjectOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export interface InjectResult {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  json: Record<string, unknown> & {
    data?: unknown;
    error?: string;
    meta?: { total: number; page: number; per_page: number };
  };
  text: string;
}

export interface TestHub {
  hub: Hub;
  config: HubConfig;
  ownerKey: string;
  ownerPassword: string;
  dataDir: string;
  clock: ManualClock;
  /** Set when `listen` was asked for. */
  servers: RunningServers | null;
  /** The PostgreSQL schema it runs on (null on SQLite). */
  pgSchema: string | null;
  request(method: string, url: string, options?: InjectOptions): Promise<InjectResult>;
  createKey(input: {
    role?: AssignableRole;
    scopes?: string[];
    allowed_assets?: string[];
    expires_at?: string;
    name?: string;
  }): Promise<ApiKeyCreated>;
  createAsset(input?: Record<string, unknown>): Promise<{ id: string; name: string }>;
  /**
   * A clean restart: this hub closes (hub.close(), as on SIGTERM) and a new one opens on the same data
   * directory and database, with these options changed. Use the hub it answers from then on.
   */
  restart(changes?: Partial<TestHubOptions>): Promise<TestHub>;
  close(): Promise<void>;
}

/** What a restarted hub reopens: the data directory and the PostgreSQL schema of the one before. */
interface ReopenedStore {
  dataDir: string;
  pgSchema: PgSchema | null;
}

/**
 * The owner's password as the tests use it: on first run the generated one is changed as the first sign-in
 * would (unless the test wants the first run as it is); a hub reopened on a directory gets a fresh one.
 */
async function settleOwnerPassword(hub: Hub, keepFirstRun: boolean): Promise<string> {
  const context = await localOwnerContext(hub.database.db);
  const chosen = `test-owner-${Math.random().toString(36).slice(2)}`;
  if (hub.owner.created && hub.owner.password) {
    if (keepFirstRun) return hub.owner.password;
    await hub.services.users.changeOwnPassword(context, {
      current_password: hub.owner.password,
      new_password: chosen,
    });
    return chosen;
  }
  const ownerId = context.principal.userId ?? '';
  await hub.services.users.update(systemOwnerContext(), ownerId, { password: chosen });
  return chosen;
}

export function startTestHub(options: TestHubOptions = {}): Promise<TestHub> {
  return openTestHub(options, null);
}

async function openTestHub(options: TestHubOptions, reopened: ReopenedStore | null): Promise<TestHub> {
  // vitest.config.ts sets the tier: a test that starts a hub belongs to the hub tier, not the unit one.
  if (process.env.SVC_TEST_TIER === 'unit') {
    throw new Error(
      'startTestHub in the unit tier: list this test file under the hub tier (vitest.config.ts)',
    );
  }
  const dataDir = reopened?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hub-test-'));
  const config = parseEnv(
    {
      SVC_DATA_DIR: dataDir,
      SVC_TLS_MODE: 'disabled',
      SVC_BCRYPT_COST: '4',
      SVC_RATE_LIMIT_ENABLED: 'false',
      ...(options.injectAsHttps ? { SVC_TRUSTED_PROXIES: '127.0.0.1' } : {}),
      ...(options.postgresUrl ? { SVC_DATABASE_URL: options.postgresUrl } : {}),
      ...options.env,
    },
    dataDir,
  );
  config.rateLimit = { ...config.rateLimit, ...options.rateLimit };
  const joined = options.joinDatabaseOf ?? null;
  if (joined && (joined.pgSchema === null || !options.postgresUrl))
    throw new Error('joinDatabaseOf needs a hub on PostgreSQL and postgresUrl');
  const joinedSchema = options.postgresUrl ? (joined?.pgSchema ?? options.pgSchema ?? null) : null;
  // A second hub on a schema the harness handed out: it must not be emptied for reuse while that hub may write.
  if (joinedSchema && !reopened) markPgSchemaShared(joinedSchema);
  const own: ReusablePgSchema | null =
    !reopened && !joinedSchema && options.postgresUrl ? await takePgSchema(options.postgresUrl) : null;
  const pgSchema: PgSchema | null = joinedSchema
    ? { schema: joinedSchema, drop: () => Promise.resolve() }
    : (reopened?.pgSchema ?? own);
  if (config.databaseUrl === null && !reopened) await seedMigratedSqlite(config.dataDir);
  const clock = options.clock ?? new ManualClock(new Date('2026-11-23T12:00:00.000Z'));
  const hub = await createHub({
    config,
    logger: silentLogger,
    clock,
    // A publisher whose payload drifted from its schema in protocol fails the test that drove it.
    validateEvents: true,
    ...(pgSchema ? { database: { pgSchema: pgSchema.schema } } : {}),
    ...(options.listen ? { serverFactory: httpsServerFactory } : {}),
    ...(options.passwords ? { passwords: options.passwords } : {}),
    ...(options.consoleDir ? { consoleDir: options.consoleDir } : {}),
    ...(options.eventStream ? { eventStream: options.eventStream } : {}),
    ...(options.outbound ? { outbound: options.outbound } : {}),
    ...(options.webhookDelivery ? { webhookDelivery: options.webhookDelivery } : {}),
    ...(options.connectors ? { connectors: options.connectors } : {}),
    ...(options.remoteWrite ? { remoteWrite: options.remoteWrite } : {}),
    ...(options.cluster ? { cluster: options.cluster } : {}),
  });
  if (own?.fresh) await own.migrated();
  const servers = options.listen
    ? await startServers(hub, { host: '127.0.0.1', httpPort: 0, httpsPort: 0, tlsMode: config.tlsMode })
    : null;
  const ownerPassword = joined
    ? joined.ownerPassword
    : await settleOwnerPassword(hub, options.keepFirstRun === true);
  // The owner token is made the way an owner makes it (a new one revokes earlier ones), shown once, to us.
  const ownerContext = await localOwnerContext(hub.database.db);
  const ownerKey = joined
    ? (
        await hub.services.apiKeys.create(ownerContext, {
          name: 'second process',
          role: 'admin',
          scopes: ['*'],
        })
      ).raw_key
    : (await hub.services.apiKeys.rotateOwnerToken(ownerContext)).raw_key;

  const request: TestHub['request'] = async (method, url, o = {}) => {
    const headers: Record<string, string> = {
      ...(options.injectAsHttps ? { 'x-forwarded-proto': 'https' } : {}),
      ...o.headers,
    };
    const key = o.key === undefined ? ownerKey : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let payload: string | undefined;
    if (o.rawBody !== undefined) payload = o.rawBody;
    else if (o.body !== undefined) {
      payload = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await hub.app.inject({
      method: method as 'GET',
      url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
      remoteAddress: o.remoteAddress ?? '127.0.0.1',
    });
    let json: InjectResult['json'];
    try {
      json = response.body ? (JSON.parse(response.body) as InjectResult['json']) : {};
    } catch {
      json = {};
    }
    return { status: response.statusCode, headers: response.headers, json, text: response.body };
  };

  return {
    hub,
    config,
    ownerKey,
    ownerPassword,
    dataDir,
    clock,
    servers,
    pgSchema: pgSchema?.schema ?? null,
    request,
    async createKey(input) {
      const res = await request('POST', '/api/v2/keys', {
        body: {
          name: input.name ?? 'test key',
          role: input.role ?? 'admin',
          scopes: input.scopes ?? ['*'],
          ...pick(input),
        },
      });
      if (res.status !== 201) throw new Error(`createKey failed: ${res.status} ${res.text}`);
      return res.json.data as ApiKeyCreated;
    },
    async createAsset(input = {}) {
      const res = await request('POST', '/api/v2/assets', {
        body: { name: `asset-${Math.random().toString(36).slice(2, 8)}`, ...input },
      });
      if (res.status !== 201) throw new Error(`createAsset failed: ${res.status} ${res.text}`);
      return res.json.data as { id: string; name: string };
    },
    async restart(changes = {}) {
      await servers?.close();
      await hub.close();
      return openTestHub({ ...options, clock, ...changes }, { dataDir, pgSchema });
    },
    async close() {
      await servers?.close();
      await hub.close();
      await pgSchema?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
      // The CA key directory defaults to a sibling of the data directory (SVC_TLS_CA_KEY_DIR).
      if (config.tlsCaKeyDir === `${config.dataDir}-ca-key`)
        fs.rmSync(config.tlsCaKeyDir, { recursive: true, force: true });
    },
  };
}

function pick(input: { allowed_assets?: string[]; expires_at?: string }) {
  return {
    ...(input.allowed_assets ? { allowed_assets: input.allowed_assets } : {}),
    ...(input.expires_at ? { expires_at: input.expires_at } : {}),
  };
}

/**
 * The databases a storage test runs against: SQLite always, and the real PostgreSQL when
 * SVC_TEST_DATABASE_URL is set (CI sets it).
 */
export function databaseTargets(): { name: string; options: TestHubOptions }[] {
  const url = process.env.SVC_TEST_DATABASE_URL;
  return [
    { name: 'sqlite', options: {} },
    ...(url ? [{ name: 'postgres', options: { postgresUrl: url } }] : []),
  ];
}
