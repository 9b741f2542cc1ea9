/**
 * The hub's modules, built in the order they are composed, started and (in reverse) closed: each group returns
 * its modules in that order, each built from the platform parts and what the modules before it provide. A new
 * area is one entry in the group it belongs to.
 */
import type { HubConfig } from '../config/env.js';
import type { CredentialLifetime } from '../http/credential-lifetime.js';
import type { Clock } from '../platform/clock.js';
import type { HubDatabase } from '../platform/db/database.js';
import { checkDatabaseReadiness } from '../platform/db/readiness.js';
import type { Logger } from '../platform/logger.js';
import type { LiveOutbound } from '../platform/outbound/live-policy.js';
import type { PasswordHasher } from '../platform/password-hasher.js';
import type { SecretBox } from '../platform/secret-box.js';
import type { PrometheusTelemetry } from '../platform/telemetry/prometheus.js';
import type { TlsManager } from '../platform/tls/tls-manager.js';
import { createActionsModule } from '../modules/actions/actions.module.js';
import { createAgentsModule } from '../modules/agents/agents.module.js';
import { createAlertsModule } from '../modules/alerts/alerts.module.js';
import { createAssetsModule } from '../modules/assets/assets.module.js';
import { createAuditModule } from '../modules/audit/audit.module.js';
import { createAuthModule } from '../modules/auth/auth.module.js';
import { createBackupModule } from '../modules/backup/backup.module.js';
import { createBulkModule } from '../modules/bulk/bulk.module.js';
import { createConnectorsModule } from '../modules/connectors/connectors.module.js';
import type { ConnectorServiceOptions } from '../modules/connectors/connectors.service.js';
import { createContainersModule } from '../modules/containers/containers.module.js';
import { createDependenciesModule } from '../modules/dependencies/dependencies.module.js';
import { createDesktopModule } from '../modules/desktop/desktop.module.js';
import { createDiscoveryModule } from '../modules/discovery/discovery.module.js';
import { createEnrollmentModule } from '../modules/enrollment/enrollment.module.js';
import { createEventsModule, type EventStreamLimits } from '../modules/events/events.module.js';
import { createExecModule } from '../modules/exec/exec.module.js';
import { createFilesModule } from '../modules/files/files.module.js';
import { createGroupsModule } from '../modules/groups/groups.module.js';
import { createHomeautoModule } from '../modules/homeauto/homeauto.module.js';
import { createHubModule } from '../modules/hub/hub.module.js';
import { createIncidentsModule } from '../modules/incidents/incidents.module.js';
import { createKeysModule } from '../modules/keys/keys.module.js';
import { createMeshvpnModule } from '../modules/meshvpn/meshvpn.module.js';
import { createMetricsModule, type MetricsIntake } from '../modules/metrics/metrics.module.js';
import { createMobileModule } from '../modules/mobile/mobile.module.js';
import { createNasModule } from '../modules/nas/nas.module.js';
import { createNotificationsModule } from '../modules/notifications/notifications.module.js';
import { createPowerModule } from '../modules/power/power.module.js';
import { createSchedulesModule } from '../modules/schedules/schedules.module.js';
import { createSearchModule } from '../modules/search/search.module.js';
import { createSessionsModule } from '../modules/sessions/sessions.module.js';
import { createSettingsModule, type RuntimeSettings } from '../modules/settings/settings.module.js';
import { createStacksModule } from '../modules/stacks/stacks.module.js';
import { createStatusModule } from '../modules/status/status.module.js';
import { createSystemModule } from '../modules/system/system.module.js';
import { createTlsModule } from '../modules/tls/tls.module.js';
import { createUsersModule } from '../modules/users/users.module.js';
import { createVirtModule } from '../modules/virt/virt.module.js';
import type { WebhookDeliveryOptions } from '../modules/webhooks/webhooks.service.js';
import { createWebhooksModule } from '../modules/webhooks/webhooks.module.js';
import { createWhoamiModule } from '../modules/whoami/whoami.module.js';
import type { ConnectedAgents } from './agent-setup.js';
import type { JoinedCluster } from './cluster-setup.js';

/** What the modules are built from: the platform, the cluster and the agents, made before any module. */
export interface ModuleParts {
  config: HubConfig;
  logger: Logger;
  clock: Clock;
  database: HubDatabase;
  box: SecretBox;
  tls: TlsManager;
  telemetry: PrometheusTelemetry;
  startedAt: Date;
  cluster: JoinedCluster;
  agents: ConnectedAgents;
  runtimeSettings: RuntimeSettings;
  credentials: CredentialLifetime;
  metricsIntake: MetricsIntake;
  passwords: PasswordHasher;
  isSecure: Parameters<typeof createAuthModule>[0]['isSecure'];
  rateLimiters: JoinedCluster['rateLimiters'];
  /** The egress-guarded client webhooks, notifications and connectors dial out through. */
  outbound: LiveOutbound;
  requestRestart: (() => void) | null;
  eventStream: Partial<EventStreamLimits> | undefined;
  webhookDelivery: Partial<WebhookDeliveryOptions> | undefined;
  connectors: Partial<ConnectorServiceOptions> | undefined;
}

/** Every module, by name, in the order of composition. */
export function createModules(parts: ModuleParts) {
  const accounts = createAccountModules(parts);
  const operations = createOperationModules(parts, accounts);
  return { ...accounts, ...operations, ...createOutwardModules(parts, accounts, operations) };
}

export type HubModules = ReturnType<typeof createModules>;

/** The parts nearly every module takes. */
function baseOf(parts: ModuleParts, audit: ReturnType<typeof createAuditModule>) {
  return {
    db: parts.database.db,
    clock: parts.clock,
    audit: audit.services.audit,
    events: parts.cluster.events,
  };
}

/** Who may do what, the fleet's inventory and the hub's own configuration. */
function createAccountModules(parts: ModuleParts) {
  const { config, clock, database, runtimeSettings, credentials, rateLimiters, tls } = parts;
  const { db, writeVersions } = database;
  const { gateway } = parts.agents;
  const { invalidation } = parts.cluster;
  const audit = createAuditModule({
    db,
    clock,
    retentionDays: () => runtimeSettings.get('retention.audit_days'),
  });
  const base = baseOf(parts, audit);
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
    passwords: parts.passwords,
    dataDir: config.dataDir,
    onSessionEnded: (id) => {
      credentials.endSession(id);
    },
  });
  const tlsModule = createTlsModule({ db, clock, audit: base.audit, tls, invalidation });
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
    logger: parts.logger,
    intake: parts.metricsIntake,
    gateway,
    assets: assetService,
    runsHere: parts.cluster.runsHere('metrics_sweep'),
  });
  return {
    audit,
    assets,
    groups,
    keys,
    users,
    auth: createAuthModule({
      ...base,
      box: parts.box,
      passwords: parts.passwords,
      ...users.services,
      keys: keys.services.apiKeys,
      isSecure: parts.isSecure,
      oidc: config.oidc,
      rateLimiters,
    }),
    whoami: createWhoamiModule({ assets: assetService, writeVersions }),
    search: createSearchModule({ assets: assetService, groups: groups.services.groups }),
    status: createStatusModule({ clock, assets: assetService, groups: groups.services.groups }),
    tls: tlsModule,
    settings: createSettingsModule({
      ...base,
      runtime: runtimeSettings,
      tls: tlsModule.services.tls,
      requestRestart: parts.requestRestart,
      invalidation,
    }),
    enrollment,
    metrics,
    agents: createAgentsModule({
      db,
      gateway,
      credentials: enrollment.services.enrollment,
      metricsCounts: (id) => metrics.services.budget.countsFor(id),
    }),
    hub: createStatusOfHubModule(parts, assets, metrics, tlsModule),
  };
}

/** The hub's own status and health (modules/hub). */
function createStatusOfHubModule(
  parts: ModuleParts,
  assets: ReturnType<typeof createAssetsModule>,
  metrics: ReturnType<typeof createMetricsModule>,
  tlsModule: ReturnType<typeof createTlsModule>,
) {
  const { config, clock, database, tls } = parts;
  const { bus } = parts.cluster;
  const { gateway } = parts.agents;
  const { budget, store, purger } = metrics.services;
  return createHubModule({
    assets: assets.services.assets,
    clock,
    dialect: database.dialect,
    startedAt: parts.startedAt,
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
    tls: tlsModule.services.tls,
    health: {
      database: () => checkDatabaseReadiness(database.db),
      tlsLoaded: () => config.tlsMode === 'disabled' || tls.secureContext() !== null,
      ...(bus.shared ? { bus: () => bus.status() } : {}),
    },
    telemetry: parts.telemetry,
  });
}

type AccountModules = ReturnType<typeof createAccountModules>;

/** What is done on the fleet's machines, by hand, in bulk, on a schedule or when an alert fires. */
function createOperationModules(parts: ModuleParts, accounts: AccountModules) {
  const { config, logger, runtimeSettings, telemetry } = parts;
  const { bus, registry } = parts.cluster;
  const base = baseOf(parts, accounts.audit);
  const groups = accounts.groups.services.groups;
  const operations = { ...base, agents: parts.agents.agentCalls };
  const exec = createExecModule({
    ...operations,
    groups,
    structuredEnabled: () => runtimeSettings.policy('structured'),
    telemetry,
  });
  const system = createSystemModule(operations);
  const automation = { ...base, groups, exec: exec.services.exec };
  const actions = createActionsModule(automation);
  const alerts = createAlertsModule({
    ...base,
    logger,
    assets: accounts.assets.services.assets,
    metrics: accounts.metrics.services.metrics,
    services: system.services.system,
    intervalMs: config.alertIntervalS * 1000,
    runsHere: parts.cluster.runsHere('alerts'),
  });
  return {
    exec,
    files: createFilesModule(operations),
    system,
    power: createPowerModule({ ...operations, wolBroadcast: config.wolBroadcast }),
    containers: createContainersModule(operations),
    actions,
    schedules: createSchedulesModule({
      ...automation,
      actions: actions.services.actions,
      logger,
      cluster: { nodeId: bus.nodeId, liveNodes: () => registry.liveNodes(), lease: registry },
    }),
    bulk: createBulkModule({ ...operations, groups, system: system.services.system }),
    alerts,
    incidents: createIncidentsModule({ alerts: alerts.services.alerts }),
    events: createEventsModule({
      events: parts.cluster.events,
      credentials: parts.credentials,
      ...(parts.eventStream ? { limits: parts.eventStream } : {}),
    }),
  };
}

type OperationModules = ReturnType<typeof createOperationModules>;

/**
 * What reaches out of the hub (webhooks, notifications, phones, upstream services) and the interactive
 * sessions.
 */
function createOutwardModules(parts: ModuleParts, accounts: AccountModules, ops: OperationModules) {
  const { config, clock, logger, runtimeSettings, box, outbound, telemetry } = parts;
  const { bus, registry, invalidation } = parts.cluster;
  const base = baseOf(parts, accounts.audit);
  const assetService = accounts.assets.services.assets;
  const outboundParts = { ...base, box, outbound, logger, telemetry };
  const alerts = ops.alerts.services.alerts;
  const mobile = createMobileModule({
    ...base,
    alerts,
    usernameOf: async (userId) => (await accounts.users.services.users.account(userId))?.username ?? userId,
    hubNames: () => accounts.tls.services.tls.info().dns_names,
  });
  const connectors = createConnectorsModule({
    ...outboundParts,
    connectorAssets: accounts.assets.services.connectorAssets,
    actionsEnabled: () => runtimeSettings.get('policy.connector_enabled'),
    ...(parts.connectors ? { options: parts.connectors } : {}),
    runsHere: parts.cluster.runsHere('connectors'),
  });
  const connectorService = connectors.services.connectors;
  const connectorParts = {
    db: base.db,
    audit: base.audit,
    connectors: connectorService,
    connectorAssets: accounts.assets.services.connectorAssets,
  };
  // Terminal and desktop sessions share the interactive policy, the recording setting and its retention.
  const interactiveEnabled = () => runtimeSettings.policy('interactive');
  const recordingEnabled = () => runtimeSettings.get('sessions.recording_enabled');
  const recordingRetentionDays = () => runtimeSettings.get('retention.recordings_days');
  const { agentCalls, gateway, owned } = parts.agents;
  return {
    webhooks: createWebhooksModule({
      ...outboundParts,
      delivery: parts.webhookDelivery ?? {},
      retentionDays: () => runtimeSettings.get('retention.webhook_deliveries_days'),
      cluster: {
        nodeId: bus.nodeId,
        shared: bus.shared,
        liveNodes: () => registry.liveNodes(),
        lease: registry,
      },
      invalidation,
    }),
    notifications: createNotificationsModule({
      ...outboundParts,
      minSeverity: () => runtimeSettings.get('notifications.min_severity'),
    }),
    mobile,
    discovery: createDiscoveryModule({
      ...base,
      gateway,
      assets: assetService,
      defaults: () => runtimeSettings.discoveryDefaults(),
      outboundPolicy: () => outbound.client().policy,
    }),
    connectors,
    meshvpn: createMeshvpnModule({ clock, tailscaleBinary: config.tailscaleBinary }),
    nas: createNasModule({ connectors: connectorService }),
    stacks: createStacksModule({ connectors: connectorService }),
    homeauto: createHomeautoModule({ connectors: connectorService, audit: base.audit }),
    virt: createVirtModule({ ...connectorParts, task: { pollMs: parts.connectors?.taskPollMs ?? 500 } }),
    backup: createBackupModule(connectorParts),
    dependencies: createDependenciesModule({
      ...base,
      logger,
      assets: assetService,
      containers: ops.containers.services.containers,
    }),
    desktop: createDesktopModule({
      ...base,
      box,
      logger,
      assets: assetService,
      agents: agentCalls,
      streams: gateway,
      dataDir: config.dataDir,
      interactiveEnabled,
      recordingEnabled,
      recordingRetentionDays,
      credentials: parts.credentials,
      deviceOwner: mobile.services.deviceOwner,
      cluster: owned,
    }),
    sessions: createSessionsModule({
      ...base,
      logger,
      settings: {
        interactiveEnabled,
        recordingEnabled,
        detachGraceSeconds: () => runtimeSettings.get('sessions.detach_grace_seconds'),
        idleTimeoutMinutes: () => runtimeSettings.get('sessions.idle_timeout_minutes'),
      },
      agentCalls,
      streams: gateway,
      credentials: parts.credentials,
      deviceOwner: mobile.services.deviceOwner,
      retentionDays: recordingRetentionDays,
      cluster: owned,
      lease: registry,
    }),
  };
}
