/**
 * The connectors' side facing their upstreams: one egress client per connector (rebuilt when its TLS choice
 * changes), the context a driver calls with, the health each call and check records, upstream failures turned
 * into 502 `upstream_error`, and the check-and-inventory sync (one at a time per connector).
 */
import type { ConnectorKind } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ConnectorDriver, InventoryItem, UpstreamContext } from '../../connectors/base/connector.js';
import { outboundTlsOf, type ConnectorTls } from '../../connectors/base/connector-tls.js';
import { UpstreamError, upstreamHubError } from '../../connectors/base/upstream-error.js';
import { createUpstreamHttp } from '../../connectors/base/upstream-http.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import type { ConnectorAssetService } from '../assets/connector-assets.service.js';
import { updateConnector, type ConnectorRow } from './connectors.repository.js';

export const credentialsContext = (id: string) => `connector:${id}`;

function tlsOf(row: Pick<ConnectorRow, 'tls_mode' | 'tls_ca' | 'tls_fingerprint'>): ConnectorTls {
  return {
    mode: row.tls_mode as ConnectorTls['mode'],
    ca: row.tls_ca,
    fingerprint: row.tls_fingerprint,
  };
}

/**
 * What a call to an upstream threw, as the UpstreamError the caller answers (502, health error): its own
 * UpstreamError, or anything else a driver threw on an answer it did not expect (a TypeError on a shape
 * the schema let through), logged with its stack. HubErrors (a 404 the module decided) pass through.
 */
function upstreamFailureOf(logger: Logger, row: ConnectorRow, error: unknown): UpstreamError {
  if (error instanceof HubError) throw error;
  if (error instanceof UpstreamError) return error;
  logger.error({ err: error, connector: row.id }, 'connectors: unexpected failure on an upstream answer');
  const reason = error instanceof Error ? error.message : String(error);
  return new UpstreamError('malformed', `unexpected answer (${reason})`, null, { cause: error });
}

export interface ConnectorUpstreams {
  /** Runs `work` on the connector's upstream: health recorded, UpstreamError thrown as 502. */
  call<T>(row: ConnectorRow, work: (ctx: UpstreamContext) => Promise<T>): Promise<T>;
  /** Check and inventory, after any sync of the same connector still running; the error text when it failed. */
  checkAndSync(row: ConnectorRow): Promise<{ error: string | null; assets: number | null }>;
  /** Forgets a removed connector's egress client. */
  dropClient(id: string): void;
  /** Closes every egress client. */
  close(): Promise<void>;
}

export function createConnectorUpstreams(deps: {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  outbound: LiveOutbound;
  logger: Logger;
  connectorAssets: ConnectorAssetService;
  drivers: Partial<Record<ConnectorKind, ConnectorDriver | null>>;
  options: { timeoutMs: number; healthWriteMs: number };
  telemetry: Pick<Telemetry, 'connectorCall'> | undefined;
}): ConnectorUpstreams {
  const { db, clock, box, outbound, logger, connectorAssets, drivers, options } = deps;
  /** One live egress client per connector, rebuilt when its TLS choice changes. */
  const clients = new Map<string, { key: string; live: LiveOutbound }>();

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
      const failure = upstreamFailureOf(logger, row, error);
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

  return {
    async call(row, work) {
      try {
        const result = await work(contextOf(row));
        await recordHealth(row, null);
        return result;
      } catch (error) {
        const failure = upstreamFailureOf(logger, row, error);
        // An upstream that answered on purpose (a task that failed) is reachable: health stays ok.
        await recordHealth(row, failure.failure === 'failed' ? null : failure.message);
        throw upstreamHubError(row.name, failure);
      }
    },
    checkAndSync,
    dropClient,
    async close() {
      await Promise.all([...clients.values()].map(({ live }) => live.close()));
      clients.clear();
    },
  };
}
