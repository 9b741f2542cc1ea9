/**
 * How a hub process joins the others (decisions 0038, 0040): the bus and the registry of live nodes, the
 * event bus across processes, the leases of the loops that run once per cluster, cache invalidation and the
 * shared rate limits. A cluster of one without SVC_NATS_URL, where nothing crosses a process.
 */
import type { Kysely } from 'kysely';
import type { HubConfig } from '../config/env.js';
import { createAssetPresenceStore } from '../modules/assets/asset-presence.service.js';
import { localRateLimiters, type RateLimiterFactory } from '../http/rate-limit.js';
import { createSharedRateLimiters, type SharedRateLimiters } from '../http/shared-rate-limit.js';
import type { Clock } from '../platform/clock.js';
import { busKeyInfo } from '../platform/cluster/bus-auth.js';
import { createCluster, type Cluster } from '../platform/cluster/cluster.js';
import { createCacheInvalidation, type CacheInvalidation } from '../platform/cluster/invalidation.js';
import { createLeaseKeeper, type LeaseKeeper } from '../platform/cluster/leases.js';
import type { Database } from '../platform/db/schema.js';
import { createClusterEventBus, createInProcessEventBus, type EventBus } from '../platform/event-bus.js';
import type { Logger } from '../platform/logger.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { TlsManager } from '../platform/tls/tls-manager.js';
import type { HubModules, ModuleParts } from './modules.js';
import { reloadRuntimeSettings, type RuntimeSettings } from '../modules/settings/settings.module.js';
import { tlsOverrideTopic } from '../modules/tls/tls.service.js';

/** The loops that run on one process of a cluster at a time, each under its lease (decision 0040). */
const leaseNames = [
  'alerts',
  'connectors',
  'retention',
  'metrics_retention',
  'metrics_sweep',
  'prometheus_remote_write',
  'checks',
] as const;
type LeaseName = (typeof leaseNames)[number];

/** Something a failed start closes again, in the order given. */
interface Closable {
  close(): Promise<void>;
}

export interface JoinedCluster extends Cluster {
  events: EventBus;
  leases: LeaseKeeper;
  invalidation: CacheInvalidation;
  /** Whether this process runs a once-per-cluster loop now (it holds the loop's lease). */
  runsHere: (lease: LeaseName) => () => boolean;
  /** The cluster's rate limits when shared, each process's own otherwise. */
  rateLimiters: RateLimiterFactory;
  sharedLimiters: SharedRateLimiters | null;
  /** Messages from other processes dropped as invalid (the hub's metrics). */
  drops: () => number;
}

export interface JoinClusterDeps {
  config: Pick<HubConfig, 'natsUrl' | 'clusterLeaseMs'>;
  /** The bus and registry to use instead of those SVC_NATS_URL selects (tests). */
  cluster: Cluster | undefined;
  box: SecretBox;
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  validateEvents: boolean;
  /** Told of what has been opened so far, in the order it closes, so that a failed start can close it. */
  opened: (parts: Closable[]) => void;
}

export async function joinCluster(deps: JoinClusterDeps): Promise<JoinedCluster> {
  const { config, db, clock, logger } = deps;
  // The other processes, when there are any: one bus and one registry of live nodes (decision 0038).
  let clusterDrops = 0;
  const onClusterDrop = () => {
    clusterDrops += 1;
  };
  const cluster =
    deps.cluster ??
    createCluster({
      natsUrl: config.natsUrl,
      // Every process shares the hub key: the bus signs with a key derived from it, never with it.
      busKeys: deps.box.deriveKeys(busKeyInfo),
      db,
      clock,
      logger,
      leaseMs: config.clusterLeaseMs,
      onDropped: onClusterDrop,
    });
  const { bus, registry } = cluster;
  deps.opened([bus]);
  await registry.start();
  deps.opened([registry, bus]);
  // No agent is connected to this process yet: what no live process holds (a crashed run left it online)
  // is offline now; the agents of the other live processes stay online (decision 0039).
  await createAssetPresenceStore(db).markOrphansOffline(registry.liveNodes());
  const eventBusOptions = {
    clock,
    onListenerError: (error: unknown) => {
      logger.error({ err: error }, 'event listener failed');
    },
    validate: deps.validateEvents,
  };
  const events = bus.shared
    ? createClusterEventBus({ ...eventBusOptions, bus: cluster.bus, onDropped: onClusterDrop })
    : createInProcessEventBus(eventBusOptions);

  const leases = createLeaseKeeper({
    db,
    clock,
    nodeId: bus.nodeId,
    names: leaseNames,
    shared: bus.shared,
    onError: (error) => {
      logger.error({ err: error }, 'cluster: renewing leases failed');
    },
  });
  await leases.start();
  // A start that fails after this point gives the leases back and leaves the cluster.
  deps.opened([leases, registry, bus]);
  const invalidation = createCacheInvalidation({
    bus,
    onError: (error) => {
      logger.error({ err: error }, 'cluster: a cache invalidation failed');
    },
  });
  // Limits are the cluster's: each process counts locally and shares its spending every 250 ms.
  const sharedLimiters = bus.shared
    ? createSharedRateLimiters({ bus, processes: () => registry.liveNodes().size })
    : null;
  return {
    ...cluster,
    events,
    leases,
    invalidation,
    runsHere: (lease) => () => leases.holds(lease),
    rateLimiters: sharedLimiters?.factory ?? localRateLimiters,
    sharedLimiters,
    drops: () => clusterDrops,
  };
}

/**
 * What another process changed, served here too: the uploaded TLS certificate at once through its
 * invalidation (decision 0044), and, as a backstop for an invalidation the bus lost, the runtime settings and
 * that certificate read again every 30 s in a cluster. Returns the stop.
 */
export function followClusterSettings(deps: {
  cluster: JoinedCluster;
  db: Kysely<Database>;
  runtimeSettings: RuntimeSettings;
  tls: TlsManager;
  logger: Logger;
}): () => void {
  const { db, runtimeSettings, tls, logger } = deps;
  const reloadTls = () => {
    tls.reloadOverride().catch((error: unknown) => {
      logger.error({ err: error }, 'cluster: reloading the uploaded TLS certificate failed');
    });
  };
  const settingsReload = deps.cluster.bus.shared
    ? setInterval(() => {
        reloadRuntimeSettings(db, runtimeSettings).catch((error: unknown) => {
          logger.error({ err: error }, 'cluster: reloading runtime settings failed');
        });
        reloadTls();
      }, 30_000)
    : null;
  settingsReload?.unref();
  deps.cluster.invalidation.on(tlsOverrideTopic, reloadTls);
  return () => {
    if (settingsReload) clearInterval(settingsReload);
  };
}

/**
 * A process that died: one live process takes over its webhook deliveries, reports its schedule runs and ends
 * its terminal and desktop sessions. This process stalled past its lease and registered again (decision
 * 0053): what it still holds is its own again; the sessions the others ended meanwhile end here too.
 */
export function followClusterNodes(
  parts: Pick<ModuleParts, 'cluster' | 'agents' | 'database' | 'logger'>,
  modules: HubModules,
): () => void {
  const { registry } = parts.cluster;
  const { presence, readinessChanged, localGateway } = parts.agents;
  const { writeVersions } = parts.database;
  const stopNodeGone = registry.onNodeGone(async (gone) => {
    await Promise.all([
      modules.webhooks.services.webhooks.onNodeGone(gone),
      modules.schedules.services.scheduler.onNodeGone(gone),
      modules.updates.services.runner.onNodeGone(gone),
      modules.sessions.services.sessions.onNodeGone(gone),
      modules.desktop.services.desktopSessions.onNodeGone(gone),
    ]);
  });
  const stopLeaseRegained = registry.onLeaseRegained(async () => {
    const again = await presence.regained(localGateway.sessions().map((s) => s.assetId));
    for (const assetId of again) readinessChanged(assetId);
    if (again.length > 0) writeVersions?.touch('assets');
    parts.logger.info({ agents: again.length }, 'agents this process holds written online again');
    await Promise.all([
      modules.sessions.services.sessions.leaseRegained(),
      modules.desktop.services.desktopSessions.leaseRegained(),
    ]);
  });
  return () => {
    stopNodeGone();
    stopLeaseRegained();
  };
}
