/**
 * Composition: opens storage, builds the platform pieces the modules share (database, clock, events, runtime
 * settings, TLS, the agent gateway), then the modules in order, and the HTTP app from what they contribute.
 * main.ts and the test harness both start the hub through here, so tests run the same wiring users do.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { HubConfig } from './config/env.js';
import { buildApp } from './app.js';
import type { MoveOptions, MoveOutcome } from './agents/move-agents.js';
import type { ClusterAgentGateway } from './agents/cluster-gateway.js';
import { createConsoleHandler, defaultConsoleDir } from './http/console.js';
import { createCredentialLifetime, type CredentialLifetime } from './http/credential-lifetime.js';
import type { Clock } from './platform/clock.js';
import type { Cluster } from './platform/cluster/cluster.js';
import type { CacheInvalidation } from './platform/cluster/invalidation.js';
import type { LeaseKeeper } from './platform/cluster/leases.js';
import { lockDataDir } from './platform/data-dir-lock.js';
import type { DatabaseOptions, HubDatabase } from './platform/db/database.js';
import { databaseSizeBytes } from './platform/db/readiness.js';
import type { EventBus } from './platform/event-bus.js';
import { createIdempotencyStore } from './platform/idempotency.js';
import type { Logger } from './platform/logger.js';
import type { Resolver } from './platform/outbound/guarded-lookup.js';
import type { PasswordHasher } from './platform/password-hasher.js';
import { interactiveTurnedOff } from './platform/policy-error.js';
import { createRetentionRunner, type RetentionRunner } from './platform/retention.js';
import type { SecretBox } from './platform/secret-box.js';
import type { TlsManager } from './platform/tls/tls-manager.js';
import type { AlertEvaluator } from './modules/alerts/alert-evaluator.service.js';
import type { AlertService } from './modules/alerts/alerts.service.js';
import type { AssetService } from './modules/assets/assets.service.js';
import type { AuditService } from './modules/audit/audit.service.js';
import type { LoginService } from './modules/auth/login.service.js';
import type { TwoFactorService } from './modules/auth/two-factor.service.js';
import type { ConnectorService, ConnectorServiceOptions } from './modules/connectors/connectors.service.js';
import type { DesktopCredentialService } from './modules/desktop/desktop.service.js';
import type { EnrollmentService } from './modules/enrollment/enrollment.service.js';
import type { EventStreamLimits, EventStreamServer } from './modules/events/events.module.js';
import type { ExecService } from './modules/exec/exec.service.js';
import type { GroupService } from './modules/groups/groups.service.js';
import type { ApiKeyService } from './modules/keys/keys.service.js';
import type { MetricsBudget, MetricsPurger, MetricsStore } from './modules/metrics/metrics.module.js';
import { composeModules } from './modules/module.js';
import type { NotificationService } from './modules/notifications/notifications.service.js';
import type { RuntimeSettings } from './modules/settings/settings.module.js';
import type { OidcAccounts } from './modules/users/oidc-accounts.service.js';
import type { SessionService } from './modules/users/session.service.js';
import { bootstrapOwner, type OwnerBootstrapResult } from './modules/users/users.module.js';
import type { UserService } from './modules/users/users.service.js';
import type { WebhookDeliveryOptions, WebhookService } from './modules/webhooks/webhooks.service.js';
import { followClusterNodes } from './hub/cluster-setup.js';
import { createModules, type HubModules } from './hub/modules.js';
import { assemblePlatform, type OpenedParts } from './hub/platform-setup.js';

export interface HubOptions {
  config: HubConfig;
  logger: Logger;
  clock?: Clock;
  database?: Partial<DatabaseOptions>;
  /** Builds the HTTPS server around Fastify's handler (server.ts); absent for inject()-only use. */
  serverFactory?: (tls: TlsManager) => FastifyServerFactory;
  /** How this process restarts itself (main.ts); null where a supervisor must do it. */
  requestRestart?: () => void;
  /** The bounded bcrypt queue; tests pass one whose checks they hold, to fill it at will. */
  passwords?: PasswordHasher;
  /** Check every published event against its payload schema and throw on drift (the test harness sets it). */
  validateEvents?: boolean;
  /** The built web console; apps/web/dist beside the hub's package by default. */
  consoleDir?: string;
  /** The event stream's queue, frame and ping limits (protocol's eventStreamLimits by default). */
  eventStream?: Partial<EventStreamLimits>;
  /** How often retention runs (hourly by default); 0 leaves it to `hub.retention.runOnce()` (tests). */
  retentionIntervalMs?: number;
  /** The egress-guarded client's name resolver and trusted CA (tests fake DNS and trust their receiver). */
  outbound?: { resolver?: Resolver; ca?: string };
  /** Webhook delivery pacing (tests shorten the retry delays). */
  webhookDelivery?: Partial<WebhookDeliveryOptions>;
  /** Connector timeouts and the periodic check's interval (tests shorten them or turn the check off). */
  connectors?: Partial<ConnectorServiceOptions>;
  /**
   * The cluster bus and node registry to use instead of those SVC_NATS_URL selects (tests pass buses of an
   * in-memory network). The hub starts the registry and closes both when it closes.
   */
  cluster?: Cluster;
}

export interface Services {
  audit: AuditService;
  apiKeys: ApiKeyService;
  assets: AssetService;
  groups: GroupService;
  users: UserService;
  sessions: SessionService;
  twoFactor: TwoFactorService;
  login: LoginService;
  /** Every bcrypt after start-up, through one bounded queue. */
  passwords: PasswordHasher;
  enrollment: EnrollmentService;
  exec: ExecService;
  oidcAccounts: OidcAccounts;
  alerts: AlertService;
  /** The alert rules' evaluation loop; tests run a pass with `tick()`. */
  alertEvaluator: AlertEvaluator;
  /** Connectors: tests run the periodic check with `checkAll()`. */
  connectors: ConnectorService;
  /** Desktop passwords: released only to a desktop session create (spec 5.5.2). */
  desktopCredentials: DesktopCredentialService;
  /** Webhooks and their delivery queue (tests of deliveries across processes). */
  webhooks: WebhookService;
  notifications: NotificationService;
}

export interface Hub {
  app: FastifyInstance;
  database: HubDatabase;
  services: Services;
  owner: OwnerBootstrapResult;
  tls: TlsManager;
  box: SecretBox;
  /** Every agent of the cluster: this process's own through its WebSocket gateway, the others' over the bus. */
  gateway: ClusterAgentGateway;
  events: EventBus;
  /** Tells an open stream that the key it was opened with was revoked or expired. */
  credentials: CredentialLifetime;
  /** The event feed's clients (counts for the hub's status, tests and the benchmark). */
  eventStream: EventStreamServer;
  /** Purges what the Retention settings no longer keep, in batches, hourly (every module's tasks). */
  retention: RetentionRunner;
  /** Runtime settings and policies in memory: changed through the API, read by code paths at once. */
  settings: RuntimeSettings;
  /** The start of a clean stop: /readyz answers 503 `stopping` while everything else is served as before. */
  markStopping(): void;
  /**
   * After the drain: this process's agents are told to reconnect to the others (decision 0055), and new ones
   * are refused; resolves once they have gone or the wait ends.
   */
  tellAgentsToMove(options?: MoveOptions): Promise<MoveOutcome>;
  /** Agents' samples through their budgets into the store; deleted assets' histories purged. */
  metrics: { budget: MetricsBudget; store: MetricsStore; purger: MetricsPurger };
  /**
   * The processes this one shares the fleet with (decisions 0038, 0040): bus, registry, leases, cache
   * invalidation; a cluster of one without SVC_NATS_URL.
   */
  cluster: Cluster & { leases: LeaseKeeper; invalidation: CacheInvalidation };
  close(): Promise<void>;
}

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
  const modules = createModules({ ...parts, credentials });
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
    connectors: modules.connectors.services.connectors,
    desktopCredentials: modules.desktop.services.desktopCredentials,
    webhooks: modules.webhooks.services.webhooks,
    notifications: modules.notifications.services.notifications,
  };
}
