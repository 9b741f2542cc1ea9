/**
 * Composition: opens storage, builds every service and the HTTP app from a config. main.ts and the test
 * harness both start the hub through here, so tests run the same wiring users do.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyServerFactory } from 'fastify';
import type { HubConfig } from './config/env.js';
import { buildApp } from './app.js';
import { createConsoleHandler, defaultConsoleDir } from './http/console.js';
import { buildOpenApiDocument } from './http/openapi.js';
import { createCredentialLifetime, type CredentialLifetime } from './http/credential-lifetime.js';
import type { Handlers, RawHandler } from './http/register-routes.js';
import { createTransportCheck } from './http/transport-security.js';
import { systemClock, type Clock } from './platform/clock.js';
import { prepareDataDir } from './platform/data-dir.js';
import { openDatabase, type DatabaseOptions, type HubDatabase } from './platform/db/database.js';
import type { Logger } from './platform/logger.js';
import { createRefusalLog } from './platform/refusal-log.js';
import { loadSecretBox, type SecretBox } from './platform/secret-box.js';
import { lockDataDir } from './platform/data-dir-lock.js';
import { createInProcessEventBus, type EventBus } from './platform/event-bus.js';
import { createPasswordHasher, type PasswordHasher } from './platform/password-hasher.js';
import { createChannelAuthenticator } from './agents/channel-auth.js';
import { createAgentGateway, type WebSocketAgentGateway } from './agents/gateway.js';
import { markAgentAssetsOffline } from './agents/presence.js';
import { agentChannelRawRoutes, enrollmentRoutes } from './modules/enrollment/enrollment.routes.js';
import { createEnrollmentService, type EnrollmentService } from './modules/enrollment/enrollment.service.js';
import { createOperationServices, operationsRoutes } from './modules/agent-ops/operations.js';
import type { ExecService } from './modules/exec/exec.service.js';
import { createMetricsBudget, type MetricsBudget } from './modules/metrics/metrics-budget.js';
import { createMetricsPurger, type MetricsPurger } from './modules/metrics/metrics-purger.js';
import { createMetricsStore, type MetricsStore } from './modules/metrics/metrics.store.js';
import { TlsManager } from './platform/tls/tls-manager.js';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes.js';
import { createApiKeyService, type ApiKeyService } from './modules/api-keys/api-keys.service.js';
import { assetRoutes } from './modules/assets/assets.routes.js';
import { createAssetListCache } from './modules/assets/asset-list-cache.js';
import { createAssetService, type AssetService } from './modules/assets/assets.service.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { createAuditService, type AuditService } from './modules/audit/audit.service.js';
import { authRawRoutes, authRoutes } from './modules/auth/auth.routes.js';
import { oidcRawRoutes } from './modules/auth/oidc.routes.js';
import { createOidcService } from './modules/auth/oidc.service.js';
import { createLoginService, type LoginService } from './modules/auth/login.service.js';
import { createSessionService, type SessionService } from './modules/auth/session.service.js';
import { createTwoFactorService, type TwoFactorService } from './modules/auth/two-factor.service.js';
import { groupRoutes } from './modules/groups/groups.routes.js';
import { createGroupService, type GroupService } from './modules/groups/groups.service.js';
import { hubRoutes } from './modules/hub/hub.routes.js';
import { createHubStatusService } from './modules/hub/hub-status.service.js';
import { createRestartService } from './modules/hub/restart.service.js';
import { createStatusAggregateService } from './modules/hub/status-aggregate.service.js';
import { searchRoutes } from './modules/search/search.routes.js';
import { loadRuntimeSettings, type RuntimeSettings } from './modules/settings/runtime-settings.js';
import { settingsRoutes } from './modules/settings/settings.routes.js';
import { createSettingsService } from './modules/settings/settings.service.js';
import { createSearchService } from './modules/search/search.service.js';
import { tlsRawRoutes, tlsRoutes } from './modules/tls/tls.routes.js';
import { createTlsService, loadTlsOverride } from './modules/tls/tls.service.js';
import {
  bootstrapOwner,
  ownerCredentialsPath,
  type OwnerBootstrapResult,
} from './modules/users/owner-bootstrap.js';
import { findUser } from './modules/users/users.repository.js';
import { userRoutes } from './modules/users/users.routes.js';
import { createUserService, type UserService } from './modules/users/users.service.js';
import { whoamiRoutes } from './modules/whoami/whoami.routes.js';
import { createWhoamiService } from './modules/whoami/whoami.service.js';

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
}

export interface Hub {
  app: FastifyInstance;
  database: HubDatabase;
  services: Services;
  owner: OwnerBootstrapResult;
  tls: TlsManager;
  box: SecretBox;
  gateway: WebSocketAgentGateway;
  events: EventBus;
  /** Tells an open stream that the key it was opened with was revoked or expired. */
  credentials: CredentialLifetime;
  /** Runtime settings and policies in memory: changed through the API, read by code paths at once. */
  settings: RuntimeSettings;
  /** Agents' samples through their budgets into the store; deleted assets' histories purged. */
  metrics: { budget: MetricsBudget; store: MetricsStore; purger: MetricsPurger };
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
  const opened: { database?: HubDatabase } = {};
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
    await opened.database?.close().catch(() => undefined);
    lock.release();
    removeWhatThisStartMade(dataDir, before);
    throw error;
  }
}

async function assembleHub(options: HubOptions, opened: { database?: HubDatabase }): Promise<Hub> {
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
  const startedAt = clock.now();
  // No agent is connected before this process serves: whatever the last run left online is offline now.
  await markAgentAssetsOffline(db);
  const events = createInProcessEventBus({
    clock,
    onListenerError: (error) => {
      logger.error({ err: error }, 'event listener failed');
    },
    validate: options.validateEvents === true,
  });

  const runtimeSettings = await loadRuntimeSettings(db, config.settingsEnv);
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

  const tls = new TlsManager({
    mode: config.tlsMode,
    dataDir: config.dataDir,
    caKeyDir: config.tlsCaKeyDir,
    hostnames: config.tlsHostnames,
    externalCertFile: config.tlsCertFile,
    externalKeyFile: config.tlsKeyFile,
    box,
    clock,
    logger,
    loadOverride: () => loadTlsOverride(db),
  });
  await tls.init();

  const audit = createAuditService({ db, clock });
  const apiKeys = createApiKeyService({ db, clock, audit, events });
  const credentials = createCredentialLifetime({ events, clock });
  const metricsStore = createMetricsStore({
    db,
    clock,
    retentionDays: metricsRetentionDays,
    onError: (error) => {
      logger.error({ err: error }, 'metrics write failed');
    },
  });
  const metricsBudget = createMetricsBudget({
    sink: metricsStore,
    clock,
    logger,
    collectIntervalS,
    retentionDays: metricsRetentionDays,
  });
  const metricsPurger = createMetricsPurger({
    db,
    dialect: database.dialect,
    flush: () => metricsStore.settled(),
    onError: (error) => {
      logger.error({ err: error }, 'deleting the metric history of a deleted asset failed');
    },
  });
  const { writeVersions } = database;
  // One refusal log for HTTP and the agent channel: an address's refusals of both kinds share its lines.
  const refusals = createRefusalLog({ logger });
  const gateway = createAgentGateway({
    db,
    clock,
    logger,
    events,
    metrics: metricsBudget,
    refusals,
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
    onReadinessChange: () => {
      writeVersions?.touch('assets');
    },
  });
  const assets = createAssetService({
    db,
    clock,
    audit,
    events,
    isConnected: (id) => gateway.isConnected(id),
    disconnectAgent: (id) => {
      gateway.disconnect(id, 'asset deleted');
    },
    purgeMetrics: (id) => {
      metricsBudget.forget(id);
      metricsPurger.purge(id);
    },
    ...(writeVersions ? { listCache: createAssetListCache(() => String(writeVersions.of('assets'))) } : {}),
  });
  const groups = createGroupService({ db, clock, audit, events });
  const passwords = options.passwords ?? createPasswordHasher({ cost: config.bcryptCost });
  const users = createUserService({
    db,
    clock,
    audit,
    events,
    passwords,
    ownerCredentialsPath: ownerCredentialsPath(config.dataDir),
  });
  const search = createSearchService({ db });
  const whoami = createWhoamiService({ db, writeVersions });
  const hubStatus = createHubStatusService({
    db,
    clock,
    dialect: database.dialect,
    startedAt,
    connectedAgents: () => gateway.connectedCount(),
    metrics: () => {
      const refused = metricsBudget.totals();
      const stored = metricsStore.stats();
      return {
        samples_dropped: refused.over_budget + refused.duplicate + refused.out_of_window,
        samples_lost: stored.dropped,
        purges_pending: metricsPurger.pending(),
      };
    },
  });
  const aggregate = createStatusAggregateService({ db, clock });
  const settingsService = createSettingsService({ db, clock, audit, events, runtime: runtimeSettings });
  const restart = createRestartService({ db, audit, requestRestart: options.requestRestart ?? null });
  const sessions = createSessionService({ db, clock });
  const twoFactor = createTwoFactorService({
    db,
    clock,
    audit,
    events,
    box,
    passwords,
    username: async (userId) => (await findUser(db, userId))?.username ?? userId,
  });
  const login = createLoginService({
    db,
    clock,
    audit,
    sessions,
    twoFactor,
    passwords,
  });
  const tlsService = createTlsService({ db, clock, audit, tls });
  const enrollment = createEnrollmentService({
    db,
    clock,
    audit,
    events,
    tls,
    gateway,
    enrollsPerMinute: config.rateLimit.enabled ? 30 : null,
    tokenDefaults: () => ({
      expiresInHours: runtimeSettings.get('enrollment.token_default_expires_hours'),
      maxUses: runtimeSettings.get('enrollment.token_default_max_uses'),
    }),
  });
  const oidc = config.oidc
    ? createOidcService({ config: config.oidc, db, clock, audit, events, login })
    : null;

  const operations = createOperationServices({
    db,
    clock,
    audit,
    groups,
    gateway,
    events,
    wolBroadcast: config.wolBroadcast,
    metricsCounts: (id) => metricsBudget.countsFor(id),
  });
  const operationRoutes = operationsRoutes(operations);

  const owner = await bootstrapOwner({
    db,
    clock,
    audit,
    logger,
    dataDir: config.dataDir,
    bcryptCost: config.bcryptCost,
  });

  const isSecure = createTransportCheck({ tlsMode: config.tlsMode, trustedProxies: config.trustedProxies });
  const handlers: Handlers = {
    ...whoamiRoutes(whoami),
    ...apiKeyRoutes(apiKeys),
    ...assetRoutes(assets),
    ...groupRoutes(groups),
    ...searchRoutes(search),
    ...auditRoutes(audit),
    ...hubRoutes({ hub: hubStatus, aggregate, restart }),
    ...settingsRoutes(settingsService),
    ...userRoutes(users),
    ...authRoutes({ sessions, twoFactor }),
    ...tlsRoutes(tlsService),
    ...enrollmentRoutes(enrollment),
    ...operationRoutes.handlers,
  };
  const openapi = JSON.stringify(buildOpenApiDocument());
  const rawHandlers: Partial<Record<string, RawHandler>> = {
    openapi: async (_request, reply) => reply.type('application/json; charset=utf-8').send(openapi),
    ...authRawRoutes({ login, sessions, isSecure }),
    ...oidcRawRoutes({ oidc }),
    ...tlsRawRoutes(tlsService),
    ...agentChannelRawRoutes(),
    ...operationRoutes.rawHandlers,
  };
  const app = buildApp({
    logger,
    refusals,
    isSecure,
    trustedProxies: config.trustedProxies,
    publicOrigin: config.publicOrigin,
    rateLimit,
    verifyApiKey: (text) => apiKeys.authenticate(text),
    verifySession: async (token) => (await sessions.resolve(token))?.principal ?? null,
    handlers,
    rawHandlers,
    publicUpgradeHandlers: {
      'agent.channel': (request, socket, head) => {
        gateway.handleUpgrade(request, socket, head);
      },
    },
    ...(options.serverFactory && tls.secureContext() ? { serverFactory: options.serverFactory(tls) } : {}),
    console: createConsoleHandler({ dir: options.consoleDir ?? defaultConsoleDir(), oidc: oidc !== null }),
  });

  // Samples a stopped hub left behind for assets it had deleted.
  metricsPurger.start();

  return {
    app,
    database,
    services: {
      audit,
      apiKeys,
      assets,
      groups,
      users,
      sessions,
      twoFactor,
      login,
      passwords,
      enrollment,
      exec: operations.exec,
    },
    owner,
    tls,
    box,
    gateway,
    events,
    credentials,
    settings: runtimeSettings,
    metrics: { budget: metricsBudget, store: metricsStore, purger: metricsPurger },
    async close() {
      credentials.close();
      // Agents first: upgraded sockets would otherwise keep app.close() waiting.
      await gateway.close();
      await app.close();
      metricsBudget.close();
      await metricsPurger.close();
      await metricsStore.close();
      await database.close();
      events.close();
    },
  };
}
