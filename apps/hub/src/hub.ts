/**
 * Composition: opens storage, builds the platform pieces the modules share (database, clock, events, runtime
 * settings, TLS, the agent gateway), then the modules in order, and the HTTP app from what they contribute.
 * main.ts and the test harness both start the hub through here, so tests run the same wiring users do.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from './app.js';
import { createConsoleHandler, defaultConsoleDir } from './http/console.js';
import { createCredentialLifetime } from './http/credential-lifetime.js';
import { createInternalDispatch } from './http/internal-dispatch.js';
import { lockDataDir } from './platform/data-dir-lock.js';
import { databaseSizeBytes } from './platform/db/readiness.js';
import { createIdempotencyStore } from './platform/idempotency.js';
import type { PasswordHasher } from './platform/password-hasher.js';
import { interactiveTurnedOff } from './platform/policy-error.js';
import { createRetentionRunner } from './platform/retention.js';
import { composeModules } from './modules/module.js';
import { bootstrapOwner } from './modules/users/users.module.js';
import { followClusterNodes } from './hub/cluster-setup.js';
import type { Hub, HubOptions, Services } from './hub/hub-types.js';
import { createModules, type HubModules } from './hub/modules.js';
import { assemblePlatform, type OpenedParts } from './hub/platform-setup.js';

export type { Hub, HubOptions, Services } from './hub/hub-types.js';

/** The entries of the data directory now; null when it does not exist yet. */
function dataDirEntries(dataDir: string): Set<string> | null {
  try {
    return new Set(fs.readdirSync(dataDir));
  } catch {
    return null;
  }
}

/** After a start that failed: removes what it made in the data directory, so a corrected start is a first one. */
function removeWhatThisStartMade(dataDir: string, before: Set<string> | null): void {
  if (before === null) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    return;
  }
  for (const entry of dataDirEntries(dataDir) ?? []) {
    if (!before.has(entry)) fs.rmSync(path.join(dataDir, entry), { recursive: true, force: true });
  }
}

/**
 * Starts a hub on its data directory: locked first (one hub per directory; a second is refused before it
 * touches anything), and left as it was found when the start fails (a setting refused at start creates no
 * database and no key).
 */
export async function createHub(options: HubOptions): Promise<Hub> {
  const { dataDir } = options.config;
  const before = dataDirEntries(dataDir);
  const lock = lockDataDir(dataDir);
  const opened: OpenedParts = {};
  try {
    const hub = await assembleHub(options, opened);
    return {
      ...hub,
      async close() {
        try {
          await hub.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    for (const part of opened.cluster ?? []) await part.close().catch(() => undefined);
    await opened.database?.close().catch(() => undefined);
    lock.release();
    removeWhatThisStartMade(dataDir, before);
    throw error;
  }
}

async function assembleHub(options: HubOptions, opened: OpenedParts): Promise<Hub> {
  const { parts, restartSettings, refusals, stopFollowingSettings } = await assemblePlatform(options, opened);
  const { config, logger, clock, database, tls, telemetry, cluster, runtimeSettings } = parts;
  const { db } = database;
  const { bus, registry, events, leases, invalidation } = cluster;
  const { gateway, localGateway } = parts.agents;
  const credentials = createCredentialLifetime({
    events,
    clock,
    bus,
    // Read only after start: a user's change ends some sessions, and their streams ask whether theirs lives.
    isSessionActive: (id) => modules.users.services.sessions.isActive(id),
    // Likewise after a key changed on any process: its connections are checked again with what it is now.
    resolveKey: (id) => modules.keys.services.apiKeys.principalOfKey(id),
    onError: (error) => {
      logger.error({ err: error }, 'session check failed');
    },
  });
  // The MCP server's tools run routes on the app built below from these very modules.
  const internalDispatch = createInternalDispatch();
  const modules = createModules({ ...parts, credentials, internalDispatch });
  // `true` compiles only when every contract not marked planned has a handler in one of the modules.
  const composed = composeModules(Object.values(modules), true);
  // The interactive policy turned off on another process: its settings.changed may arrive here before this
  // process has read the change, so what is attached here is closed again once it has (decision 0049).
  const stopPolicyWatch = runtimeSettings.onReplaced(() => {
    if (runtimeSettings.policy('interactive')) return;
    modules.sessions.services.sessions.detachAll();
    modules.desktop.services.desktopSessions.detachAll(interactiveTurnedOff);
  });

  const owner = await bootstrapOwner({
    db,
    clock,
    audit: modules.audit.services.audit,
    logger,
    dataDir: config.dataDir,
    bcryptCost: config.bcryptCost,
  });

  const { apiKeys } = modules.keys.services;
  const { sessions } = modules.users.services;
  const idempotency = createIdempotencyStore(db, clock);
  const app = buildApp({
    logger,
    refusals,
    idempotency,
    isSecure: parts.isSecure,
    trustedProxies: config.trustedProxies,
    publicOrigin: config.publicOrigin,
    rateLimit: restartSettings.rateLimit,
    rateLimiters: cluster.rateLimiters,
    verifyApiKey: (text) => apiKeys.authenticate(text),
    verifySession: async (token) => (await sessions.resolve(token))?.principal ?? null,
    handlers: composed.handlers,
    rawHandlers: composed.rawHandlers,
    earlyRefusals: composed.earlyRefusals,
    upgradeHandlers: composed.upgrades,
    publicUpgradeHandlers: composed.publicUpgrades,
    ...(options.serverFactory && tls.secureContext() ? { serverFactory: options.serverFactory(tls) } : {}),
    telemetry,
    internalDispatch,
    console: createConsoleHandler({
      dir: options.consoleDir ?? defaultConsoleDir(),
      oidc: config.oidc !== null,
    }),
  });

  const retention = createRetentionRunner({
    clock,
    tasks: [...composed.retentionTasks, idempotency.retention],
    ...(options.retentionIntervalMs !== undefined ? { intervalMs: options.retentionIntervalMs } : {}),
    runsHere: cluster.runsHere('retention'),
    onError: (task, error) => {
      logger.error({ err: error, task }, 'retention failed');
    },
    onPurged: (task, deleted) => {
      logger.info({ task, deleted }, 'retention purged');
    },
  });

  telemetry.setSources({
    // This process's own connections: each process's gauge adds up to the cluster's (hub status shows all).
    agentsConnected: () => localGateway.connectedCount(),
    eventSubscribers: () => modules.events.services.stream.clientCount(),
    eventDrops: () => modules.events.services.stream.droppedCount(),
    databaseBytes: () => databaseSizeBytes(db, database.dialect),
    databasePool: () => database.poolStats(),
    clusterNodes: () => registry.liveNodes().size,
    clusterDrops: () => cluster.drops(),
    lease: registry,
  });
  composed.start(events);
  const stopFollowingNodes = followClusterNodes(parts, modules);
  if (options.retentionIntervalMs !== 0) retention.start();

  return {
    app,
    database,
    services: servicesOf(modules, parts.passwords),
    owner,
    tls,
    box: parts.box,
    gateway,
    events,
    credentials,
    eventStream: modules.events.services.stream,
    retention,
    settings: runtimeSettings,
    markStopping: () => {
      modules.hub.services.health.markStopping();
    },
    tellAgentsToMove: (moveOptions) => localGateway.tellAgentsToMove(moveOptions),
    metrics: {
      budget: modules.metrics.services.budget,
      store: modules.metrics.services.store,
      purger: modules.metrics.services.purger,
      rollups: modules.metrics.services.rollups,
    },
    cluster: { bus, registry, leases, invalidation },
    async close() {
      stopFollowingNodes();
      stopFollowingSettings();
      stopPolicyWatch();
      cluster.sharedLimiters?.close();
      credentials.close();
      // Agents and event streams first: upgraded sockets would otherwise keep app.close() waiting.
      await gateway.close();
      modules.events.services.stream.close();
      await app.close();
      await retention.close();
      await composed.close();
      parts.agents.owned.close();
      // Leases and claims handed back once the loops stopped, then this node leaves the cluster.
      await leases.close();
      invalidation.close();
      await registry.close();
      await bus.close();
      await parts.outbound.close();
      await database.close();
      events.close();
    },
  };
}

/** The services the hub hands its callers (main.ts, the test harness). */
function servicesOf(modules: HubModules, passwords: PasswordHasher): Services {
  return {
    audit: modules.audit.services.audit,
    apiKeys: modules.keys.services.apiKeys,
    assets: modules.assets.services.assets,
    groups: modules.groups.services.groups,
    users: modules.users.services.users,
    sessions: modules.users.services.sessions,
    twoFactor: modules.auth.services.twoFactor,
    login: modules.auth.services.login,
    passwords,
    enrollment: modules.enrollment.services.enrollment,
    exec: modules.exec.services.exec,
    oidcAccounts: modules.users.services.oidcAccounts,
    alerts: modules.alerts.services.alerts,
    alertEvaluator: modules.alerts.services.evaluator,
    maintenance: modules.maintenance.services.maintenance,
    maintenanceAnnouncer: modules.maintenance.services.announcer,
    connectors: modules.connectors.services.connectors,
    desktopCredentials: modules.desktop.services.desktopCredentials,
    webhooks: modules.webhooks.services.webhooks,
    notifications: modules.notifications.services.notifications,
    remoteWrite: modules.prometheus.services.remoteWrite,
    checkRunner: modules.checks.services.runner,
  };
}
