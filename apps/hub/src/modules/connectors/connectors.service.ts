/**
 * Connectors: admins add, change and remove them (credentials sealed, never returned; the URL vetted by the
 * egress guard); every call to an upstream goes through `call`, which builds the connector's egress client with
 * its TLS mode, records health and last error, and turns upstream failures into 502 `upstream_error`. A bounded
 * periodic check keeps health current and syncs each connector's inventory into assets. connector-upstreams.ts
 * holds the upstream side (clients, health, sync), connector-config.ts the admin's input checks.
 */
import {
  newId,
  type Connector,
  type ConnectorCheck,
  type ConnectorCreate,
  type ConnectorKind,
  type ConnectorUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext, Principal } from '../../access/principal.js';
import type { ConnectorDriver, UpstreamContext } from '../../connectors/base/connector.js';
import { connectorDrivers } from '../../connectors/registry.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import type { ConnectorAsset, ConnectorAssetService } from '../assets/connector-assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { connectorChanges, newConnectorRow, vetUrl } from './connector-config.js';
import { createConnectorChecks } from './connector-checks.js';
import { enabledConnectors, pickConnector, resolveConnectorAsset } from './connector-lookup.js';
import { createConnectorUpstreams } from './connector-upstreams.js';
import { presentConnector } from './connectors.presenter.js';
import {
  deleteConnector,
  findConnector,
  insertConnector,
  listConnectors,
  updateConnector,
  type ConnectorRow,
} from './connectors.repository.js';

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

/** Deletes a connector and the assets it brought (each one's deletion published), audited. */
async function removeConnector(
  deps: {
    db: Kysely<Database>;
    audit: AuditService;
    connectorAssets: ConnectorAssetService;
    events: EventBus;
  },
  ctx: ActionContext,
  row: ConnectorRow,
): Promise<Connector> {
  const { db, audit, connectorAssets } = deps;
  const { id } = row;
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
  return presentConnector(row, counts.get(id) ?? 0);
}

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
  const upstreams = createConnectorUpstreams({
    db,
    clock,
    box,
    outbound,
    logger,
    connectorAssets,
    drivers,
    options,
    telemetry: deps.telemetry,
  });
  const checks = createConnectorChecks({
    db,
    logger,
    upstreams,
    isSupported: (kind) => Boolean(drivers[kind]),
    checkIntervalMs: options.checkIntervalMs,
    ...(deps.runsHere ? { runsHere: deps.runsHere } : {}),
  });

  async function loadRow(id: string): Promise<ConnectorRow> {
    const row = await findConnector(db, id);
    if (!row) throw new HubError('not_found', `no connector ${id}`);
    return row;
  }

  async function present(row: ConnectorRow): Promise<Connector> {
    const counts = await connectorAssets.counts();
    return presentConnector(row, counts.get(row.id) ?? 0);
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
      const row = newConnectorRow(box, input, { id: newId('connector'), now: clock.now().toISOString() });
      await vetUrl(outbound, input.base_url);
      await db.transaction().execute(async (trx) => {
        await insertConnector(trx, row);
        await audit.record(trx, ctx, {
          action: 'connector.created',
          targetType: 'connector',
          targetId: row.id,
          detail: { name: row.name, kind: row.kind, base_url: row.base_url, tls_mode: row.tls_mode },
        });
      });
      if (row.enabled === 1) checks.syncSoon(row);
      return presentConnector(row, 0);
    },

    async update(ctx, id, input) {
      const row = await loadRow(id);
      const changes = await connectorChanges({ box, outbound }, row, input, clock.now().toISOString());
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
      const removed = await removeConnector({ db, audit, connectorAssets, events: deps.events }, ctx, row);
      upstreams.dropClient(id);
      return removed;
    },

    async test(ctx, id) {
      const row = await loadRow(id);
      const started = performance.now();
      const outcome = await upstreams.checkAndSync(row);
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

    pick: (kind, id) => pickConnector(db, kind, id),

    enabledOf: (kind) => enabledConnectors(db, kind),

    resolveAsset: (principal, assetId, kind) =>
      resolveConnectorAsset({ db, connectorAssets }, principal, assetId, kind),

    async call(connector, work) {
      const row = await loadRow(connector.id);
      if (row.enabled !== 1) throw new HubError('conflict', `connector ${row.name} is disabled`);
      return upstreams.call(row, work);
    },

    assertActionsAllowed() {
      if (!deps.actionsEnabled()) {
        throw new HubError('forbidden', 'connector actions are turned off (policy.connector_enabled)');
      }
    },

    async resync(connectorId) {
      const row = await findConnector(db, connectorId);
      if (!row || row.enabled !== 1) return;
      await upstreams.checkAndSync(row);
    },

    checkAll: () => checks.checkAll(),

    start() {
      checks.start();
    },

    async close() {
      await checks.close();
      await upstreams.close();
    },
  };
  return service;
}
