/**
 * Connectors: admins add, change and remove them (credentials sealed, never returned; the URL vetted by the
 * egress guard); every call to an upstream goes through `call`, which builds the connector's egress client with
 * its TLS mode, records health and last error, and turns upstream failures into 502 `upstream_error`. A bounded
 * periodic check keeps health current and syncs each connector's inventory into assets.
 */
import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import {
  newId,
  type Connector,
  type ConnectorCheck,
  type ConnectorCreate,
  type ConnectorKind,
  type ConnectorUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { canSeeAsset, type ActionContext, type Principal } from '../../access/principal.js';
import type { ConnectorDriver, InventoryItem, UpstreamContext } from '../../connectors/base/connector.js';
import { outboundTlsOf, tlsProblem, type ConnectorTls } from '../../connectors/base/connector-tls.js';
import { UpstreamError, upstreamHubError } from '../../connectors/base/upstream-error.js';
import { createUpstreamHttp } from '../../connectors/base/upstream-http.js';
import { connectorDrivers } from '../../connectors/registry.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import { vetOutboundUrl } from '../../platform/outbound/outbound-url.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { ConnectorAsset, ConnectorAssetService } from '../assets/connector-assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { presentConnector } from './connectors.presenter.js';
import {
  allConnectors,
  deleteConnector,
  findConnector,
  insertConnector,
  listConnectors,
  updateConnector,
  type ConnectorRow,
} from './connectors.repository.js';
import type { EventBus } from '../../platform/event-bus.js';

/** A connector as other modules name it. @public */
export interface ConnectorHandle {
  id: string;
  kind: ConnectorKind;
  name: string;
}

export interface ConnectorService {
  list(page: PageRequest): Promise<Page<Connector>>;
  get(id: string): Promise<Connector>;
  create(ctx: ActionContext, input: ConnectorCreate): Promise<Connector>;
  update(ctx: ActionContext, id: string, input: ConnectorUpdate): Promise<Connector>;
  remove(ctx: ActionContext, id: string): Promise<Connector>;
  /** Checks the upstream now and syncs its inventory; the outcome, also when it failed. */
  test(ctx: ActionContext, id: string): Promise<ConnectorCheck>;
  /** The enabled connector of this kind with this id, or the first enabled one: 404 when there is none. */
  pick(kind: ConnectorKind, id?: string): Promise<ConnectorHandle>;
  /** Every enabled connector of a kind. */
  enabledOf(kind: ConnectorKind): Promise<ConnectorHandle[]>;
  /**
   * The connector asset behind `/<kind>/assets/{id}` (the guard has checked `allowed_assets`): 404 for no
   * such asset, 409 for one no connector of this kind brought.
   */
  resolveAsset(
    principal: Principal,
    assetId: string,
    kind: ConnectorKind,
  ): Promise<{ asset: ConnectorAsset; connector: ConnectorHandle }>;
  /** Runs calls on the upstream: health recorded, UpstreamError answered as 502 `upstream_error`. */
  call<T>(connector: ConnectorHandle, work: (ctx: UpstreamContext) => Promise<T>): Promise<T>;
  /** 403 at once when `policy.connector_enabled` is off: connector actions (start, stop, …) are refused. */
  assertActionsAllowed(): void;
  /** Reads the inventory into assets now (after an action); failures are recorded, not thrown. */
  resync(connectorId: string): Promise<void>;
  /** One pass of the periodic check over every enabled connector (tests call it). */
  checkAll(): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

export interface ConnectorServiceOptions {
  /** Per request to an upstream. */
  timeoutMs: number;
  /** The periodic check and inventory sync; 0 turns it off. */
  checkIntervalMs: number;
  /** Health is written at most this often while it stays the same. */
  healthWriteMs: number;
  /** How often a running upstream task (a guest's start) is polled. */
  taskPollMs: number;
}

const defaultOptions: ConnectorServiceOptions = {
  timeoutMs: 10_000,
  checkIntervalMs: 5 * 60_000,
  healthWriteMs: 60_000,
  taskPollMs: 500,
};

const credentialsContext = (id: string) => `connector:${id}`;

function tlsOf(row: Pick<ConnectorRow, 'tls_mode' | 'tls_ca' | 'tls_fingerprint'>): ConnectorTls {
  return {
    mode: row.tls_mode as ConnectorTls['mode'],
    ca: row.tls_ca,
    fingerprint: row.tls_fingerprint,
  };
}

const handleOf = (row: ConnectorRow): ConnectorHandle => ({
  id: row.id,
  kind: row.kind as ConnectorKind,
  name: row.name,
});

export function createConnectorService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  box: SecretBox;
  outbound: LiveOutbound;
  logger: Logger;
  connectorAssets: ConnectorAssetService;
  /** `policy.connector_enabled`, read at each action. */
  actionsEnabled: () => boolean;
  drivers?: Partial<Record<ConnectorKind, ConnectorDriver | null>>;
  options?: Partial<ConnectorServiceOptions>;
  /** Counts calls and checks by kind and outcome (the hub's /metrics). */
  telemetry?: Pick<Telemetry, 'connectorCall'>;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}): ConnectorService {
  const { db, clock, audit, box, outbound, logger, connectorAssets } = deps;
  const options = { ...defaultOptions, ...deps.options };
  const drivers = { ...connectorDrivers, ...deps.drivers };
  /** One live egress client per connector, rebuilt when its TLS choice changes. */
  const clients = new Map<string, { key: string; live: LiveOutbound }>();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  /** Syncs started in the background (after a create), awaited on close. */
  const background = new Set<Promise<void>>();

  function driverOf(kind: ConnectorKind): ConnectorDriver {
    const driver = drivers[kind];
    if (!driver) throw new HubError('conflict', `connectors of kind ${kind} are not supported yet`);
    return driver;
  }

  function liveFor(row: ConnectorRow): LiveOutbound {
    const tls = tlsOf(row);
    const key = JSON.stringify(tls);
    const cached = clients.get(row.id);
    if (cached?.key === key) return cached.live;
    if (cached) void cached.live.close();
    const live = outbound.derive(outboundTlsOf(tls));
    clients.set(row.id, { key, live });
    return live;
  }

  function dropClient(id: string): void {
    const cached = clients.get(id);
    clients.delete(id);
    if (cached) void cached.live.close();
  }

  function contextOf(row: ConnectorRow): UpstreamContext {
    const live = liveFor(row);
    return {
      connector: {
        id: row.id,
        kind: row.kind as ConnectorKind,
        name: row.name,
        baseUrl: row.base_url,
        username: row.username,
        credentials: box.open(row.credentials_sealed, credentialsContext(row.id)),
      },
      http: (httpOptions = {}) =>
        createUpstreamHttp({
          timeoutMs: options.timeoutMs,
          ...httpOptions,
          baseUrl: httpOptions.baseUrl ?? row.base_url,
          client: () => live.client(),
        }),
      outbound: () => live.client(),
      timeoutMs: options.timeoutMs,
    };
  }

  async function loadRow(id: string): Promise<ConnectorRow> {
    const row = await findConnector(db, id);
    if (!row) throw new HubError('not_found', `no connector ${id}`);
    return row;
  }

  async function present(row: ConnectorRow): Promise<Connector> {
    const counts = await connectorAssets.counts();
    return presentConnector(row, counts.get(row.id) ?? 0);
  }

  /** Health after a call: written when it changed, or when the last write is older than `healthWriteMs`. */
  async function recordHealth(row: ConnectorRow, error: string | null): Promise<void> {
    const now = clock.now();
    const health = error === null ? 'ok' : 'error';
    // Every call and check ends here, so this is where they are counted.
    deps.telemetry?.connectorCall(row.kind, health);
    const last = row.last_checked_at === null ? 0 : Date.parse(row.last_checked_at);
    if (row.health === health && row.last_error === error && now.getTime() - last < options.healthWriteMs)
      return;
    await updateConnector(db, row.id, {
      health,
      last_error: error,
      last_checked_at: now.toISOString(),
    }).catch((failure: unknown) => {
      logger.error({ err: failure, connector: row.id }, 'connectors: recording health failed');
    });
  }

  async function vetUrl(text: string): Promise<void> {
    await vetOutboundUrl(outbound.client(), text, {
      field: 'base_url',
      baseOnly: true,
      credentialsHint: 'use credentials',
    });
  }

  function checkTls(tls: ConnectorTls): void {
    const problem = tlsProblem(tls);
    if (problem) throw validationError(problem.field, problem.problem);
  }

  /** Syncs of one connector run one after another (a create's first sync, a test, the periodic pass). */
  const syncChains = new Map<string, Promise<unknown>>();

  function checkAndSync(row: ConnectorRow): Promise<{ error: string | null; assets: number | null }> {
    const previous = syncChains.get(row.id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => checkAndSyncNow(row));
    syncChains.set(row.id, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (syncChains.get(row.id) === next) syncChains.delete(row.id);
      });
    return next;
  }

  /** Check and inventory: the error text when it failed. */
  async function checkAndSyncNow(
    row: ConnectorRow,
  ): Promise<{ error: string | null; assets: number | null }> {
    const driver = driverOf(row.kind as ConnectorKind);
    let items: InventoryItem[];
    try {
      const ctx = contextOf(row);
      await driver.check(ctx);
      items = await driver.inventory(ctx);
    } catch (error) {
      const failure = upstreamFailureOf(row, error);
      await recordHealth(row, failure.message);
      return { error: failure.message, assets: null };
    }
    try {
      const { count } = await connectorAssets.sync(row.id, items);
      await recordHealth(row, null);
      return { error: null, assets: count };
    } catch (error) {
      // What the upstream listed could not be stored (a value the database refuses): the connector is
      // unhealthy with the reason, never a 500 for the admin who asked for a test.
      logger.error({ err: error, connector: row.id }, 'connectors: storing the inventory failed');
      const reason = error instanceof Error ? error.message : String(error);
      const message = new UpstreamError(
        'malformed',
        `the inventory could not be stored (${reason}); see the hub log`,
      ).message;
      await recordHealth(row, message);
      return { error: message, assets: null };
    }
  }

  /**
   * What a call to an upstream threw, as the UpstreamError the caller answers (502, health error): its own
   * UpstreamError, or anything else a driver threw on an answer it did not expect (a TypeError on a shape
   * the schema let through), logged with its stack. HubErrors (a 404 the module decided) pass through.
   */
  function upstreamFailureOf(row: ConnectorRow, error: unknown): UpstreamError {
    if (error instanceof HubError) throw error;
    if (error instanceof UpstreamError) return error;
    logger.error({ err: error, connector: row.id }, 'connectors: unexpected failure on an upstream answer');
    const reason = error instanceof Error ? error.message : String(error);
    return new UpstreamError('malformed', `unexpected answer (${reason})`, null, { cause: error });
  }

  const service: ConnectorService = {
    async list(page) {
      const { rows, total } = await listConnectors(db, pageWindow(page));
      const counts = await connectorAssets.counts();
      return toPage(
        rows.map((row) => presentConnector(row, counts.get(row.id) ?? 0)),
        total,
        page,
      );
    },

    async get(id) {
      return present(await loadRow(id));
    },

    async create(ctx, input) {
      if (!drivers[input.kind])
        throw validationError('kind', `connectors of kind ${input.kind} are not supported yet`);
      const tls: ConnectorTls = {
        mode: input.tls_mode ?? 'system',
        ca: input.tls_ca ?? null,
        fingerprint: input.tls_fingerprint ?? null,
      };
      checkTls(tls);
      await vetUrl(input.base_url);
      const id = newId('connector');
      const now = clock.now().toISOString();
      const row: ConnectorRow = {
        id,
        kind: input.kind,
        name: input.name,
        base_url: input.base_url,
        username: input.username ?? null,
        credentials_sealed: box.seal(input.credentials, credentialsContext(id)),
        tls_mode: tls.mode,
        tls_ca: tls.mode === 'pinned_ca' ? tls.ca : null,
        tls_fingerprint: tls.mode === 'fingerprint' ? tls.fingerprint : null,
        enabled: input.enabled === false ? 0 : 1,
        health: 'unknown',
        last_error: null,
        last_checked_at: null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await insertConnector(trx, row);
        await audit.record(trx, ctx, {
          action: 'connector.created',
          targetType: 'connector',
          targetId: id,
          detail: { name: row.name, kind: row.kind, base_url: row.base_url, tls_mode: row.tls_mode },
        });
      });
      if (row.enabled === 1) {
        // The first inventory, so the new connector's assets appear without waiting for the periodic check.
        const first = checkAndSync(row)
          .then(() => undefined)
          .catch((error: unknown) => {
            logger.error({ err: error, connector: id }, 'connectors: first check failed');
          })
          .finally(() => background.delete(first));
        background.add(first);
      }
      return presentConnector(row, 0);
    },

    async update(ctx, id, input) {
      const row = await loadRow(id);
      const changes: Partial<ConnectorRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.base_url !== undefined) {
        await vetUrl(input.base_url);
        changes.base_url = input.base_url;
      }
      if (input.username !== undefined) changes.username = input.username;
      if (input.credentials !== undefined)
        changes.credentials_sealed = box.seal(input.credentials, credentialsContext(id));
      if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
      if (input.tls_mode !== undefined || input.tls_ca !== undefined || input.tls_fingerprint !== undefined) {
        const mode = input.tls_mode ?? (row.tls_mode as ConnectorTls['mode']);
        const tls: ConnectorTls = {
          mode,
          ca: input.tls_ca === undefined ? row.tls_ca : input.tls_ca,
          fingerprint: input.tls_fingerprint === undefined ? row.tls_fingerprint : input.tls_fingerprint,
        };
        checkTls(tls);
        changes.tls_mode = mode;
        changes.tls_ca = mode === 'pinned_ca' ? tls.ca : null;
        changes.tls_fingerprint = mode === 'fingerprint' ? tls.fingerprint : null;
      }
      // What the last check said no longer speaks for a connector pointed elsewhere or with other credentials.
      if (
        changes.base_url !== undefined ||
        changes.credentials_sealed !== undefined ||
        changes.tls_mode !== undefined
      ) {
        changes.health = 'unknown';
        changes.last_error = null;
      }
      await db.transaction().execute(async (trx) => {
        await updateConnector(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'connector.updated',
          targetType: 'connector',
          targetId: id,
          // Which fields moved; never the credentials' value.
          detail: { fields: Object.keys(input), tls_mode: changes.tls_mode ?? row.tls_mode },
        });
      });
      return present({ ...row, ...changes });
    },

    async remove(ctx, id) {
      const row = await loadRow(id);
      const counts = await connectorAssets.counts();
      let removed: { id: string; name: string }[] = [];
      await db.transaction().execute(async (trx) => {
        removed = await connectorAssets.removeAll(trx, id);
        await deleteConnector(trx, id);
        await audit.record(trx, ctx, {
          action: 'connector.deleted',
          targetType: 'connector',
          targetId: id,
          detail: { name: row.name, kind: row.kind, assets_removed: removed.length },
        });
      });
      for (const asset of removed)
        deps.events.publish('asset.deleted', { asset_ids: [asset.id], asset_id: asset.id, name: asset.name });
      dropClient(id);
      return presentConnector(row, counts.get(id) ?? 0);
    },

    async test(ctx, id) {
      const row = await loadRow(id);
      const started = performance.now();
      const outcome = await checkAndSync(row);
      await db.transaction().execute(async (trx) => {
        await audit.record(trx, ctx, {
          action: 'connector.tested',
          targetType: 'connector',
          targetId: id,
          detail: { health: outcome.error === null ? 'ok' : 'error' },
        });
      });
      return {
        health: outcome.error === null ? 'ok' : 'error',
        error: outcome.error,
        duration_ms: Math.round(performance.now() - started),
        assets: outcome.assets,
      };
    },

    async pick(kind, id) {
      const enabled = await service.enabledOf(kind);
      const found = id === undefined ? enabled[0] : enabled.find((c) => c.id === id);
      if (!found) {
        throw new HubError(
          'not_found',
          id === undefined ? `no enabled ${kind} connector` : `no enabled ${kind} connector ${id}`,
        );
      }
      return found;
    },

    async enabledOf(kind) {
      return (await allConnectors(db)).filter((row) => row.kind === kind && row.enabled === 1).map(handleOf);
    },

    async resolveAsset(principal, assetId, kind) {
      if (!canSeeAsset(principal, assetId)) throw new HubError('not_found', `no asset ${assetId}`);
      const asset = await connectorAssets.find(assetId);
      const row = asset ? await findConnector(db, asset.connectorId) : undefined;
      if (!asset || !row || row.kind !== kind) {
        if (!asset && !(await connectorAssets.exists(assetId)))
          throw new HubError('not_found', `no asset ${assetId}`);
        throw new HubError('conflict', `asset ${assetId} is not managed by a ${kind} connector`);
      }
      return { asset, connector: handleOf(row) };
    },

    async call(connector, work) {
      const row = await loadRow(connector.id);
      if (row.enabled !== 1) throw new HubError('conflict', `connector ${row.name} is disabled`);
      try {
        const result = await work(contextOf(row));
        await recordHealth(row, null);
        return result;
      } catch (error) {
        const failure = upstreamFailureOf(row, error);
        // An upstream that answered on purpose (a task that failed) is reachable: health stays ok.
        await recordHealth(row, failure.failure === 'failed' ? null : failure.message);
        throw upstreamHubError(row.name, failure);
      }
    },

    assertActionsAllowed() {
      if (!deps.actionsEnabled()) {
        throw new HubError('forbidden', 'connector actions are turned off (policy.connector_enabled)');
      }
    },

    async resync(connectorId) {
      const row = await findConnector(db, connectorId);
      if (!row || row.enabled !== 1) return;
      await checkAndSync(row);
    },

    async checkAll() {
      for (const row of await allConnectors(db)) {
        if (row.enabled !== 1 || !drivers[row.kind as ConnectorKind]) continue;
        await checkAndSync(row).catch((error: unknown) => {
          logger.error({ err: error, connector: row.id }, 'connectors: periodic check failed');
        });
      }
    },

    start() {
      if (options.checkIntervalMs <= 0) return;
      timer = setInterval(() => {
        // One process checks and syncs (its lease): N processes would ask every upstream N times.
        if (deps.runsHere && !deps.runsHere()) return;
        // One pass at a time: a slow upstream delays the next pass, never stacks them.
        running ??= service.checkAll().finally(() => {
          running = null;
        });
      }, options.checkIntervalMs);
      timer.unref();
    },

    async close() {
      if (timer) clearInterval(timer);
      await running;
      await Promise.all([...background]);
      await Promise.all([...clients.values()].map(({ live }) => live.close()));
      clients.clear();
    },
  };
  return service;
}
