/**
 * What the modules are built from, before any module: the data directory, the hub key, the database, the TLS
 * identity, the cluster, the runtime settings and the agents' gateway.
 */
import type { HubOptions } from './hub-types.js';
import { systemClock, type Clock } from '../platform/clock.js';
import { prepareDataDir } from '../platform/data-dir.js';
import { openDatabase, type HubDatabase } from '../platform/db/database.js';
import { createLiveOutbound } from '../platform/outbound/live-policy.js';
import { createPasswordHasher } from '../platform/password-hasher.js';
import { createRefusalLog } from '../platform/refusal-log.js';
import { loadSecretBox } from '../platform/secret-box.js';
import { createPrometheusTelemetry } from '../platform/telemetry/prometheus.js';
import { clusterCaRecord } from '../platform/tls/cluster-ca.js';
import { TlsManager } from '../platform/tls/tls-manager.js';
import { createTransportCheck } from '../http/transport-security.js';
import { createMetricsIntake } from '../modules/metrics/metrics.module.js';
import { loadRuntimeSettings } from '../modules/settings/settings.module.js';
import { loadTlsOverride } from '../modules/tls/tls.service.js';
import { connectAgents } from './agent-setup.js';
import { followClusterSettings, joinCluster } from './cluster-setup.js';
import { readRestartSettings } from './restart-settings.js';

/** The collect interval the welcome announces; each agent's metrics budget is derived from it. */
const collectIntervalS = 60;

/** What a start opened before it failed, closed again by createHub. */
export interface OpenedParts {
  database?: HubDatabase;
  /** Cluster parts, in the order they close. */
  cluster?: { close(): Promise<void> }[];
}

/** The data directory, the hub key, the database and the TLS identity: what exists before the cluster. */
async function openStorage(options: HubOptions, clock: Clock, opened: OpenedParts) {
  const { config, logger } = options;
  prepareDataDir(config.dataDir, logger);
  const box = loadSecretBox({
    dataDir: config.dataDir,
    key: config.encryptionKey,
    retired: config.retiredEncryptionKeys,
  });
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...options.database,
  });
  opened.database = database;
  const { db } = database;
  // The TLS identity first: a process whose CA is not the cluster's is refused before it joins the cluster
  // (decision 0055).
  const tls = new TlsManager({
    mode: config.tlsMode,
    dataDir: config.dataDir,
    caKeyDir: config.tlsCaKeyDir,
    hostnames: config.tlsHostnames,
    caNames: config.tlsCaNames,
    externalCertFile: config.tlsCertFile,
    externalKeyFile: config.tlsKeyFile,
    box,
    clock,
    logger,
    loadOverride: () => loadTlsOverride(db),
    clusterCa: clusterCaRecord(db, { enforced: database.dialect === 'postgres', clock }),
    replacingCa: config.tlsReplaceCa,
  });
  await tls.init();
  return { box, database, tls };
}

/**
 * What the modules are built from, made before any module: storage, the cluster, the runtime settings and the
 * agents' gateway. `credentials` is made by the caller, which alone knows the modules its checks read.
 */
export async function assemblePlatform(options: HubOptions, opened: OpenedParts) {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const { box, database, tls } = await openStorage(options, clock, opened);
  const { db, writeVersions } = database;
  const startedAt = clock.now();
  // The hub's own metrics (/metrics): fed by the pieces below, read at each scrape.
  const telemetry = createPrometheusTelemetry();
  const cluster = await joinCluster({
    config,
    cluster: options.cluster,
    box,
    db,
    clock,
    logger,
    validateEvents: options.validateEvents === true,
    opened: (parts) => {
      opened.cluster = parts;
    },
  });
  const runtimeSettings = await loadRuntimeSettings(db, config.settingsEnv);
  const stopFollowingSettings = followClusterSettings({ cluster, db, runtimeSettings, tls, logger });
  const restartSettings = readRestartSettings(runtimeSettings, config);
  const metricsIntake = createMetricsIntake({
    db,
    clock,
    logger,
    retentionDays: restartSettings.metricsRetentionDays,
    collectIntervalS,
    runsHere: cluster.runsHere('metrics_retention'),
  });
  // One refusal log for HTTP and the agent channel: an address's refusals of both kinds share its lines.
  const refusals = createRefusalLog({ logger });
  const agents = await connectAgents({
    config,
    cluster,
    db,
    clock,
    logger,
    events: cluster.events,
    metrics: metricsIntake.budget,
    refusals,
    telemetry,
    writeVersions,
    collectIntervalS,
    discoveryDefaults: () => runtimeSettings.discoveryDefaults(),
  });
  // Webhooks and notifications dial out through one egress-guarded client that follows the runtime setting.
  const outbound = createLiveOutbound({
    base: config.outbound,
    allowPrivate: () => runtimeSettings.outboundAllowPrivate(),
    ...options.outbound,
  });
  return {
    parts: {
      config,
      logger,
      clock,
      database,
      box,
      tls,
      telemetry,
      startedAt,
      cluster,
      agents,
      runtimeSettings,
      metricsIntake,
      passwords: options.passwords ?? createPasswordHasher({ cost: config.bcryptCost }),
      isSecure: createTransportCheck({ tlsMode: config.tlsMode, trustedProxies: config.trustedProxies }),
      rateLimiters: cluster.rateLimiters,
      outbound,
      requestRestart: options.requestRestart ?? null,
      eventStream: options.eventStream,
      webhookDelivery: options.webhookDelivery,
      connectors: options.connectors,
      remoteWrite: options.remoteWrite,
    },
    restartSettings,
    refusals,
    stopFollowingSettings,
  };
}
