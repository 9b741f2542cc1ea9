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
import { createAgentCaller } from './agents/agent-call.js';
import { createConsoleHandler, defaultConsoleDir } from './http/console.js';
import { createChannelAuthenticator } from './agents/channel-auth.js';
import { createAgentGateway } from './agents/gateway.js';
import type { MoveOptions, MoveOutcome } from './agents/move-agents.js';
import { createClusterGateway, type ClusterAgentGateway } from './agents/cluster-gateway.js';
import { createOwnedStates } from './platform/cluster/owned-state.js';
import { createPresence } from './agents/presence.js';
import { createCredentialLifetime, type CredentialLifetime } from './http/credential-lifetime.js';
import { interactiveTurnedOff } from './platform/policy-error.js';
import { createTransportCheck } from './http/transport-security.js';
import { systemClock, type Clock } from './platform/clock.js';
import { prepareDataDir } from './platform/data-dir.js';
import { lockDataDir } from './platform/data-dir-lock.js';
import { checkDatabaseReadiness, databaseSizeBytes } from './platform/db/readiness.js';
import { createPrometheusTelemetry } from './platform/telemetry/prometheus.js';
import { openDatabase, type DatabaseOptions, type HubDatabase } from './platform/db/database.js';
import { createClusterEventBus, createInProcessEventBus, type EventBus } from './platform/event-bus.js';
import { busKeyInfo } from './platform/cluster/bus-auth.js';
import { createCluster, type Cluster } from './platform/cluster/cluster.js';
import type { Logger } from './platform/logger.js';
import { createPasswordHasher, type PasswordHasher } from './platform/password-hasher.js';
import { createIdempotencyStore } from './platform/idempotency.js';
import { createRefusalLog } from './platform/refusal-log.js';
import { createRetentionRunner, type RetentionRunner } from './platform/retention.js';
import { loadSecretBox, type SecretBox } from './platform/secret-box.js';
import { TlsManager } from './platform/tls/tls-manager.js';
import { clusterCaRecord } from './platform/tls/cluster-ca.js';
import { createActionsModule } from './modules/actions/actions.module.js';
import { createAgentsModule } from './modules/agents/agents.module.js';
import { createAlertsModule } from './modules/alerts/alerts.module.js';
import type { AlertEvaluator } from './modules/alerts/alert-evaluator.service.js';
import type { AlertService } from './modules/alerts/alerts.service.js';
import { createAssetsModule } from './modules/assets/assets.module.js';
import { createAssetPresenceStore } from './modules/assets/asset-presence.service.js';
import { createAssetReads } from './modules/assets/asset-reads.service.js';
import type { AssetService } from './modules/assets/assets.service.js';
import { createAuditModule } from './modules/audit/audit.module.js';
import type { AuditService } from './modules/audit/audit.service.js';
import { createAuthModule } from './modules/auth/auth.module.js';
import { createBulkModule } from './modules/bulk/bulk.module.js';
import type { LoginService } from './modules/auth/login.service.js';
import type { TwoFactorService } from './modules/auth/two-factor.service.js';
import { createEnrollmentModule } from './modules/enrollment/enrollment.module.js';
import type { EnrollmentService } from './modules/enrollment/enrollment.service.js';
import {
  createEventsModule,
  type EventStreamLimits,
  type EventStreamServer,
} from './modules/events/events.module.js';
import { createExecModule } from './modules/exec/exec.module.js';
import type { ExecService } from './modules/exec/exec.service.js';
import { createFilesModule } from './modules/files/files.module.js';
import { createGroupsModule } from './modules/groups/groups.module.js';
import type { GroupService } from './modules/groups/groups.service.js';
import { createHubModule } from './modules/hub/hub.module.js';
import { createIncidentsModule } from './modules/incidents/incidents.module.js';
import { createKeysModule } from './modules/keys/keys.module.js';
import type { ApiKeyService } from './modules/keys/keys.service.js';
import {
  createMetricsIntake,
  createMetricsModule,
  type MetricsBudget,
  type MetricsPurger,
  type MetricsStore,
} from './modules/metrics/metrics.module.js';
import { createMobileModule } from './modules/mobile/mobile.module.js';
import { createHomeautoModule } from './modules/homeauto/homeauto.module.js';
import { createMeshvpnModule } from './modules/meshvpn/meshvpn.module.js';
import { createNasModule } from './modules/nas/nas.module.js';
import { createStacksModule } from './modules/stacks/stacks.module.js';
import { composeModules } from './modules/module.js';
import { createPowerModule } from './modules/power/power.module.js';
import { createSchedulesModule } from './modules/schedules/schedules.module.js';
import { createSearchModule } from './modules/search/search.module.js';
import {
  createSettingsModule,
  loadRuntimeSettings,
  reloadRuntimeSettings,
  type RuntimeSettings,
} from './modules/settings/settings.module.js';
import { createStatusModule } from './modules/status/status.module.js';
import { createSystemModule } from './modules/system/system.module.js';
import { createContainersModule } from './modules/containers/containers.module.js';
import { createDiscoveryModule } from './modules/discovery/discovery.module.js';
import { createTlsModule } from './modules/tls/tls.module.js';
import { loadTlsOverride, tlsOverrideTopic } from './modules/tls/tls.service.js';
import type { OidcAccounts } from './modules/users/oidc-accounts.service.js';
import type { SessionService } from './modules/users/session.service.js';
import {
  bootstrapOwner,
  createUsersModule,
  type OwnerBootstrapResult,
} from './modules/users/users.module.js';
import type { UserService } from './modules/users/users.service.js';
import { createWhoamiModule } from './modules/whoami/whoami.module.js';
import { createWebhooksModule } from './modules/webhooks/webhooks.module.js';
import { createSessionsModule } from './modules/sessions/sessions.module.js';
import type { WebhookDeliveryOptions, WebhookService } from './modules/webhooks/webhooks.service.js';
import { createNotificationsModule } from './modules/notifications/notifications.module.js';
import type { NotificationService } from './modules/notifications/notifications.service.js';
import { createConnectorsModule } from './modules/connectors/connectors.module.js';
import type { ConnectorService, ConnectorServiceOptions } from './modules/connectors/connectors.service.js';
import { createVirtModule } from './modules/virt/virt.module.js';
import { createBackupModule } from './modules/backup/backup.module.js';
import { createDependenciesModule } from './modules/dependencies/dependencies.module.js';
import { createDesktopModule } from './modules/desktop/desktop.module.js';
import type { DesktopCredentialService } from './modules/desktop/desktop.service.js';
import type { Resolver } from './platform/outbound/guarded-lookup.js';
import { createLiveOutbound } from './platform/outbound/live-policy.js';
import { createCacheInvalidation, type CacheInvalidation } from './platform/cluster/invalidation.js';
import { createLeaseKeeper, type LeaseKeeper } from './platform/cluster/leases.js';
import { localRateLimiters } from './http/rate-limit.js';
import { createSharedRateLimiters } from './http/shared-rate-limit.js';

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

/** The loops that run on one process of a cluster at a time, each under its lease (decision 0040). */
const leaseNames = ['alerts', 'connectors', 'retention', 'metrics_retention', 'metrics_sweep'] as const;

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

/** The collect interval the welcome announces; each agent's metrics budget is derived from it. */
const collectIntervalS = 60;

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

/** What a start opened before it failed, closed again by createHub. */
interface OpenedParts {
  database?: HubDatabase;
  /** Cluster parts, in the order they close. */
  cluster?: { close(): Promise<void> }[];
}

async function assembleHub(options: HubOptions, opened: OpenedParts): Promise<Hub> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
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
  const startedAt = clock.now();
  // The hub's own metrics (/metrics): fed by the pieces below, read at each scrape.
  const telemetry = createPrometheusTelemetry();
  // The other processes, when there are any: one bus and one registry of live nodes (decision 0038).
  let clusterDrops = 0;
  const onClusterDrop = () => {
    clusterDrops += 1;
  };
  const cluster =
    options.cluster ??
    createCluster({
      natsUrl: config.natsUrl,
      // Every process shares the hub key: the bus signs with a key derived from it, never with it.
      busKeys: box.deriveKeys(busKeyInfo),
      db,
      clock,
      logger,
      leaseMs: config.clusterLeaseMs,
      onDropped: onClusterDrop,
    });
  const { bus, registry } = cluster;
  opened.cluster = [bus];
  await registry.start();
  opened.cluster = [registry, bus];
  // No agent is connected to this process yet: what no live process holds (a crashed run left it online)
  // is offline now; the agents of the other live processes stay online (decision 0039).
  const presenceStore = createAssetPresenceStore(db);
  await presenceStore.markOrphansOffline(registry.liveNodes());
  const eventBusOptions = {
    clock,
    onListenerError: (error: unknown) => {
      logger.error({ err: error }, 'event listener failed');
    },
    validate: options.validateEvents === true,
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
  opened.cluster = [leases, registry, bus];
  const runsHere = (lease: (typeof leaseNames)[number]) => () => leases.holds(lease);
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
  const rateLimiters = sharedLimiters?.factory ?? localRateLimiters;

  const runtimeSettings = await loadRuntimeSettings(db, config.settingsEnv);
  // Backstop for an invalidation the bus lost: the settings (and, below, the uploaded TLS certificate) are read
  // again every 30 s in a cluster.
  const settingsReload = bus.shared
    ? setInterval(() => {
        reloadRuntimeSettings(db, runtimeSettings).catch((error: unknown) => {
          logger.error({ err: error }, 'cluster: reloading runtime settings failed');
        });
        reloadTls();
      }, 30_000)
    : null;
  settingsReload?.unref();
  // Restart-required settings are read here, once: a value set through the API overrides the parsed config.
  const metricsRetentionDays =
    runtimeSettings.apiValue('retention.metrics_days') ?? config.metricsRetentionDays;
  const rateLimit = {
    ...config.rateLimit,
    perIpPerMinute:
      runtimeSettings.apiValue('rate_limit.per_ip_per_minute') ?? config.rateLimit.perIpPerMinute,
    perKeyPerMinute:
      runtimeSettings.apiValue('rate_limit.per_key_per_minute') ?? config.rateLimit.perKeyPerMinute,
  };

  // An override uploaded or cleared on another process: served here too (decision 0044).
  const reloadTls = () => {
    tls.reloadOverride().catch((error: unknown) => {
      logger.error({ err: error }, 'cluster: reloading the uploaded TLS certificate failed');
    });
  };
  invalidation.on(tlsOverrideTopic, reloadTls);

  const credentials = createCredentialLifetime({
    events,
    clock,
    bus: cluster.bus,
    // Read only after start: a user's change ends some sessions, and their streams ask whether theirs lives.
    isSessionActive: (id) => users.services.sessions.isActive(id),
    // Likewise after a key changed on any process: its connections are checked again with what it is now.
    resolveKey: (id) => keys.services.apiKeys.principalOfKey(id),
    onError: (error) => {
      logger.error({ err: error }, 'session check failed');
    },
  });
  const metricsIntake = createMetricsIntake({
    db,
    clock,
    logger,
    retentionDays: metricsRetentionDays,
    collectIntervalS,
    runsHere: runsHere('metrics_retention'),
  });
  const { writeVersions } = database;
  // One refusal log for HTTP and the agent channel: an address's refusals of both kinds share its lines.
  const refusals = createRefusalLog({ logger });
  const presence = createPresence({
    store: presenceStore,
    clock,
    events,
    logger,
    nodeId: bus.nodeId,
    lease: registry,
  });
  // The cluster gateway is told of each local readiness change; it exists only after the local gateway.
  const readiness = { changed: (_assetId: string): void => undefined };
  const localGateway = createAgentGateway({
    clock,
    logger,
    events,
    presence,
    metrics: metricsIntake.budget,
    refusals,
    telemetry,
    authenticate: createChannelAuthenticator({
      db,
      tlsMode: config.tlsMode,
      trustedProxies: config.trustedProxies,
      logger,
      refusals,
    }),
    heartbeatIntervalS: 30,
    collectIntervalS,
    discoveryDefaults: () => runtimeSettings.discoveryDefaults(),
    // Asset pages show agent.connected, which lives in the gateway: its changes count as writes of assets.
    onReadinessChange: (assetId) => {
      writeVersions?.touch('assets');
      readiness.changed(assetId);
    },
  });
  // State owned by one process (agents' connections, terminals, desktops): one seam (decision 0058).
  const owned = createOwnedStates({ bus, registry, logger });
  owned.start();
  const gateway = createClusterGateway({
    local: localGateway,
    bus: bus,
    registry,
    owned,
    presence,
    logger,
    onRemoteChange: () => {
      writeVersions?.touch('assets');
    },
  });
  readiness.changed = (assetId) => {
    gateway.readinessChanged(assetId);
  };
  await gateway.start();
  // The path every operation on an asset takes to its agent: load, hub-host rule, offline check, errors.
  const agentCalls = createAgentCaller({
    assets: createAssetReads(db),
    gateway,
    clusterDown: () => cluster.bus.shared && !cluster.bus.status().connected,
  });
  const passwords = options.passwords ?? createPasswordHasher({ cost: config.bcryptCost });
  const isSecure = createTransportCheck({ tlsMode: config.tlsMode, trustedProxies: config.trustedProxies });

  // The modules, each built from what the ones before it provide.
  const audit = createAuditModule({
    db,
    clock,
    retentionDays: () => runtimeSettings.get('retention.audit_days'),
  });
  const { audit: auditService } = audit.services;
  const base = { db, clock, audit: auditService, events };
  const assets = createAssetsModule({ ...base, gateway, writeVersions });
  const assetService = assets.services.assets;
  const groups = createGroupsModule({ ...base, assets: assetService });
  const keys = createKeysModule({
    ...base,
    assets: assetService,
    invalidation,
    onKeyChanged: (principal) => {
      credentials.keyChanged(principal);
    },
  });
  const users = createUsersModule({
    ...base,
    passwords,
    dataDir: config.dataDir,
    onSessionEnded: (id) => {
      credentials.endSession(id);
    },
  });
  const auth = createAuthModule({
    ...base,
    box,
    passwords,
    ...users.services,
    keys: keys.services.apiKeys,
    isSecure,
    oidc: config.oidc,
    rateLimiters,
  });
  const whoami = createWhoamiModule({ assets: assetService, writeVersions });
  const search = createSearchModule({ assets: assetService, groups: groups.services.groups });
  const status = createStatusModule({ clock, assets: assetService, groups: groups.services.groups });
  const tlsModule = createTlsModule({ db, clock, audit: auditService, tls, invalidation });
  const settings = createSettingsModule({
    ...base,
    runtime: runtimeSettings,
    tls: tlsModule.services.tls,
    requestRestart: options.requestRestart ?? null,
    invalidation,
  });
  const enrollment = createEnrollmentModule({
    ...base,
    tls,
    gateway,
    assets: assetService,
    enrollsPerMinute: config.rateLimit.enabled ? 30 : null,
    rateLimiters,
    tokenDefaults: () => ({
      expiresInHours: runtimeSettings.get('enrollment.token_default_expires_hours'),
      maxUses: runtimeSettings.get('enrollment.token_default_max_uses'),
    }),
  });
  const metrics = createMetricsModule({
    db,
    dialect: database.dialect,
    clock,
    logger,
    intake: metricsIntake,
    gateway,
    assets: assetService,
    runsHere: runsHere('metrics_sweep'),
  });
  const { budget, store, purger } = metrics.services;
  const agents = createAgentsModule({
    assets: assetService,
    gateway,
    credentials: enrollment.services.enrollment,
    metricsCounts: (id) => budget.countsFor(id),
  });
  const hub = createHubModule({
    assets: assetService,
    clock,
    dialect: database.dialect,
    startedAt,
    connectedAgents: () => gateway.connectedCount(),
    metrics: () => {
      const refused = budget.totals();
      const stored = store.stats();
      return {
        samples_dropped: refused.over_budget + refused.duplicate + refused.out_of_window,
        samples_lost: stored.dropped,
        purges_pending: purger.pending(),
      };
    },
    cluster: { db, bus, registry },
    tls: tlsModule.services.tls,
    health: {
      database: () => checkDatabaseReadiness(db),
      tlsLoaded: () => config.tlsMode === 'disabled' || tls.secureContext() !== null,
      ...(bus.shared ? { bus: () => bus.status() } : {}),
    },
    telemetry,
  });
  const operations = { db, audit: auditService, agents: agentCalls, events };
  const exec = createExecModule({
    ...operations,
    groups: groups.services.groups,
    structuredEnabled: () => runtimeSettings.policy('structured'),
    telemetry,
  });
  const files = createFilesModule(operations);
  const system = createSystemModule(operations);
  const power = createPowerModule({ ...operations, wolBroadcast: config.wolBroadcast });
  const containers = createContainersModule(operations);
  const automation = {
    ...base,
    assets: agentCalls.assets,
    groups: groups.services.groups,
    exec: exec.services.exec,
  };
  // Actions ask schedules whether one runs an action; schedules are built after the actions they load.
  const actions = createActionsModule({ ...automation, schedules: () => schedules.services.schedules });
  const schedules = createSchedulesModule({
    ...automation,
    actions: actions.services.actions,
    keys: keys.services.apiKeys,
    users: users.services.users,
    logger,
    cluster: { nodeId: bus.nodeId, liveNodes: () => registry.liveNodes(), lease: registry },
  });
  const bulk = createBulkModule({
    ...operations,
    groups: groups.services.groups,
    system: system.services.system,
  });
  const alerts = createAlertsModule({
    ...base,
    logger,
    assets: assetService,
    metrics: metrics.services.metrics,
    services: system.services.system,
    intervalMs: config.alertIntervalS * 1000,
    runsHere: runsHere('alerts'),
  });
  const incidents = createIncidentsModule({ alerts: alerts.services.alerts });
  const eventsModule = createEventsModule({
    events,
    credentials,
    ...(options.eventStream ? { limits: options.eventStream } : {}),
  });
  // Webhooks and notifications dial out through one egress-guarded client that follows the runtime setting.
  const outbound = createLiveOutbound({
    base: config.outbound,
    allowPrivate: () => runtimeSettings.outboundAllowPrivate(),
    ...options.outbound,
  });
  const outboundParts = { ...base, box, outbound, logger, telemetry };
  const webhooks = createWebhooksModule({
    ...outboundParts,
    delivery: options.webhookDelivery ?? {},
    retentionDays: () => runtimeSettings.get('retention.webhook_deliveries_days'),
    cluster: {
      nodeId: bus.nodeId,
      shared: bus.shared,
      liveNodes: () => registry.liveNodes(),
      lease: registry,
    },
    invalidation,
  });
  const discovery = createDiscoveryModule({
    ...base,
    gateway,
    assets: assetService,
    defaults: () => runtimeSettings.discoveryDefaults(),
    outboundPolicy: () => outbound.client().policy,
  });
  const notifications = createNotificationsModule({
    ...outboundParts,
    minSeverity: () => runtimeSettings.get('notifications.min_severity'),
  });
  const mobile = createMobileModule({
    ...base,
    alerts: alerts.services.alerts,
    usernameOf: async (userId) => (await users.services.users.account(userId))?.username ?? userId,
    hubNames: () => tlsModule.services.tls.info().dns_names,
  });
  const connectors = createConnectorsModule({
    ...outboundParts,
    connectorAssets: assets.services.connectorAssets,
    actionsEnabled: () => runtimeSettings.get('policy.connector_enabled'),
    ...(options.connectors ? { options: options.connectors } : {}),
    runsHere: runsHere('connectors'),
  });
  const sessionsModule = createSessionsModule({
    ...base,
    logger,
    settings: {
      interactiveEnabled: () => runtimeSettings.policy('interactive'),
      recordingEnabled: () => runtimeSettings.get('sessions.recording_enabled'),
      detachGraceSeconds: () => runtimeSettings.get('sessions.detach_grace_seconds'),
      idleTimeoutMinutes: () => runtimeSettings.get('sessions.idle_timeout_minutes'),
    },
    agentCalls,
    streams: gateway,
    credentials,
    deviceOwner: mobile.services.deviceOwner,
    retentionDays: () => runtimeSettings.get('retention.recordings_days'),
    cluster: owned,
  });
  const meshvpn = createMeshvpnModule({ clock, tailscaleBinary: config.tailscaleBinary });
  const connectorService = connectors.services.connectors;
  const nas = createNasModule({ connectors: connectorService });
  const stacks = createStacksModule({ connectors: connectorService });
  const homeauto = createHomeautoModule({ connectors: connectorService, audit: auditService });
  const connectorParts = {
    db,
    audit: auditService,
    connectors: connectors.services.connectors,
    connectorAssets: assets.services.connectorAssets,
  };
  const virt = createVirtModule({
    ...connectorParts,
    task: { pollMs: options.connectors?.taskPollMs ?? 500 },
  });
  const backup = createBackupModule(connectorParts);
  const dependencies = createDependenciesModule({
    ...base,
    logger,
    assets: assetService,
    containers: containers.services.containers,
  });
  const desktop = createDesktopModule({
    ...base,
    box,
    logger,
    assets: assetService,
    agents: agentCalls,
    streams: gateway,
    dataDir: config.dataDir,
    // The same policy, recording setting and retention as terminal sessions.
    interactiveEnabled: () => runtimeSettings.policy('interactive'),
    recordingEnabled: () => runtimeSettings.get('sessions.recording_enabled'),
    recordingRetentionDays: () => runtimeSettings.get('retention.recordings_days'),
    credentials,
    deviceOwner: mobile.services.deviceOwner,
    cluster: owned,
  });
  // The interactive policy turned off on another process: its settings.changed may arrive here before this
  // process has read the change, so what is attached here is closed again once it has (decision 0049).
  const stopPolicyWatch = runtimeSettings.onReplaced(() => {
    if (runtimeSettings.policy('interactive')) return;
    sessionsModule.services.sessions.detachAll();
    desktop.services.desktopSessions.detachAll(interactiveTurnedOff);
  });

  const modules = [
    audit,
    assets,
    groups,
    keys,
    users,
    auth,
    whoami,
    search,
    status,
    tlsModule,
    settings,
    enrollment,
    metrics,
    agents,
    hub,
    exec,
    files,
    system,
    power,
    containers,
    actions,
    schedules,
    bulk,
    alerts,
    incidents,
    eventsModule,
    webhooks,
    notifications,
    mobile,
    discovery,
    connectors,
    meshvpn,
    nas,
    stacks,
    homeauto,
    virt,
    backup,
    dependencies,
    desktop,
    sessionsModule,
  ];
  // `true` compiles only when every contract not marked planned has a handler in one of the modules.
  const composed = composeModules(modules, true);

  const owner = await bootstrapOwner({
    db,
    clock,
    audit: auditService,
    logger,
    dataDir: config.dataDir,
    bcryptCost: config.bcryptCost,
  });

  const { apiKeys } = keys.services;
  const { sessions } = users.services;
  const idempotency = createIdempotencyStore(db, clock);
  const app = buildApp({
    logger,
    refusals,
    idempotency,
    isSecure,
    trustedProxies: config.trustedProxies,
    publicOrigin: config.publicOrigin,
    rateLimit,
    rateLimiters,
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
    runsHere: runsHere('retention'),
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
    eventSubscribers: () => eventsModule.services.stream.clientCount(),
    eventDrops: () => eventsModule.services.stream.droppedCount(),
    databaseBytes: () => databaseSizeBytes(db, database.dialect),
    databasePool: () => database.poolStats(),
    clusterNodes: () => registry.liveNodes().size,
    clusterDrops: () => clusterDrops,
    lease: registry,
  });
  composed.start(events);
  // A process that died: one live process takes over its webhook deliveries, reports its schedule runs and
  // ends its terminal and desktop sessions.
  const stopNodeGone = registry.onNodeGone(async (gone) => {
    await Promise.all([
      webhooks.services.webhooks.onNodeGone(gone),
      schedules.services.scheduler.onNodeGone(gone),
      sessionsModule.services.sessions.onNodeGone(gone),
      desktop.services.desktopSessions.onNodeGone(gone),
    ]);
  });
  // This process stalled past its lease and registered again (decision 0053): what it still holds is its own
  // again; the sessions the others ended meanwhile end here too.
  const stopLeaseRegained = registry.onLeaseRegained(async () => {
    const again = await presence.regained(localGateway.sessions().map((s) => s.assetId));
    for (const assetId of again) readiness.changed(assetId);
    if (again.length > 0) writeVersions?.touch('assets');
    logger.info({ agents: again.length }, 'agents this process holds written online again');
    await Promise.all([
      sessionsModule.services.sessions.leaseRegained(),
      desktop.services.desktopSessions.leaseRegained(),
    ]);
  });
  if (options.retentionIntervalMs !== 0) retention.start();

  return {
    app,
    database,
    services: {
      audit: auditService,
      apiKeys,
      assets: assetService,
      groups: groups.services.groups,
      users: users.services.users,
      sessions,
      twoFactor: auth.services.twoFactor,
      login: auth.services.login,
      passwords,
      enrollment: enrollment.services.enrollment,
      exec: exec.services.exec,
      oidcAccounts: users.services.oidcAccounts,
      alerts: alerts.services.alerts,
      alertEvaluator: alerts.services.evaluator,
      connectors: connectors.services.connectors,
      desktopCredentials: desktop.services.desktopCredentials,
      webhooks: webhooks.services.webhooks,
      notifications: notifications.services.notifications,
    },
    owner,
    tls,
    box,
    gateway,
    events,
    credentials,
    eventStream: eventsModule.services.stream,
    retention,
    settings: runtimeSettings,
    markStopping: () => {
      hub.services.health.markStopping();
    },
    tellAgentsToMove: (moveOptions) => localGateway.tellAgentsToMove(moveOptions),
    metrics: { budget, store, purger },
    cluster: { ...cluster, leases, invalidation },
    async close() {
      stopNodeGone();
      stopLeaseRegained();
      if (settingsReload) clearInterval(settingsReload);
      stopPolicyWatch();
      sharedLimiters?.close();
      credentials.close();
      // Agents and event streams first: upgraded sockets would otherwise keep app.close() waiting.
      await gateway.close();
      eventsModule.services.stream.close();
      await app.close();
      await retention.close();
      await composed.close();
      owned.close();
      // Leases and claims handed back once the loops stopped, then this node leaves the cluster.
      await leases.close();
      invalidation.close();
      await registry.close();
      await bus.close();
      await outbound.close();
      await database.close();
      events.close();
    },
  };
}
