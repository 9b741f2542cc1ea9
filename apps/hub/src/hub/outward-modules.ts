/**
 * The modules that reach out of the hub and the interactive sessions, in composition order (hub/modules.ts).
 * A new area of this kind is one entry in the returned list.
 */
import { createBackupModule } from '../modules/backup/backup.module.js';
import { createChecksModule } from '../modules/checks/checks.module.js';
import { createConnectorsModule } from '../modules/connectors/connectors.module.js';
import { createDependenciesModule } from '../modules/dependencies/dependencies.module.js';
import { createDesktopModule } from '../modules/desktop/desktop.module.js';
import { createDiscoveryModule } from '../modules/discovery/discovery.module.js';
import { createHomeautoModule } from '../modules/homeauto/homeauto.module.js';
import { createMeshvpnModule } from '../modules/meshvpn/meshvpn.module.js';
import { createMcpModule } from '../modules/mcp/mcp.module.js';
import { createMobileModule } from '../modules/mobile/mobile.module.js';
import { createNasModule } from '../modules/nas/nas.module.js';
import { createNotificationsModule } from '../modules/notifications/notifications.module.js';
import { createPrometheusModule } from '../modules/prometheus/prometheus.module.js';
import { createSessionsModule } from '../modules/sessions/sessions.module.js';
import { createSnippetsModule } from '../modules/snippets/snippets.module.js';
import { createBookmarksModule } from '../modules/bookmarks/bookmarks.module.js';
import { createFiltersModule } from '../modules/filters/filters.module.js';
import { createStacksModule } from '../modules/stacks/stacks.module.js';
import { createVirtModule } from '../modules/virt/virt.module.js';
import { createWebhooksModule } from '../modules/webhooks/webhooks.module.js';
import { createOriginCheck } from '../http/transport-security.js';
import type { AccountModules } from './account-modules.js';
import { baseOf, type ModuleParts } from './module-parts.js';
import type { OperationModules } from './operation-modules.js';

/**
 * What reaches out of the hub (webhooks, notifications, phones, upstream services) and the interactive
 * sessions.
 */
export function createOutwardModules(parts: ModuleParts, accounts: AccountModules, ops: OperationModules) {
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
  const dependencies = createDependenciesModule({
    ...base,
    logger,
    assets: assetService,
    containers: ops.containers.services.containers,
  });
  const discovery = createDiscoveryModule({
    ...base,
    gateway,
    assets: assetService,
    defaults: () => runtimeSettings.discoveryDefaults(),
    outboundPolicy: () => outbound.client().policy,
  });
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
      disabledUsers: () => accounts.users.services.users.disabledIds(),
      dependents: (assetId) => dependencies.services.dependencies.dependentCount(assetId),
    }),
    mobile,
    prometheus: createPrometheusModule({
      ...base,
      logger,
      box,
      outbound,
      assets: assetService,
      groups: accounts.groups.services.groups,
      metrics: accounts.metrics.services.exported,
      runsHere: parts.cluster.runsHere('prometheus_remote_write'),
      ...(parts.remoteWrite ? { remoteWrite: parts.remoteWrite } : {}),
    }),
    discovery,
    checks: createChecksModule({
      ...base,
      logger,
      assets: agentCalls.assets,
      agents: agentCalls,
      discovery: discovery.services.discovery,
      resolve: (host) => outbound.client().resolve(host),
      runsHere: parts.cluster.runsHere('checks'),
    }),
    connectors,
    meshvpn: createMeshvpnModule({ clock, tailscaleBinary: config.tailscaleBinary }),
    nas: createNasModule({ connectors: connectorService }),
    stacks: createStacksModule({ connectors: connectorService }),
    homeauto: createHomeautoModule({ connectors: connectorService, audit: base.audit }),
    virt: createVirtModule({ ...connectorParts, task: { pollMs: parts.connectors?.taskPollMs ?? 500 } }),
    backup: createBackupModule(connectorParts),
    dependencies,
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
    mcp: createMcpModule({
      dispatch: parts.internalDispatch,
      audit: base.audit,
      logger,
      isEnabled: () => runtimeSettings.get('policy.mcp_enabled'),
      isSameOrigin: createOriginCheck({
        publicOrigin: config.publicOrigin,
        trustedProxies: config.trustedProxies,
      }),
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
    snippets: createSnippetsModule({ ...base, logger }),
    bookmarks: createBookmarksModule({ ...base, logger, assets: assetService }),
    filters: createFiltersModule({ ...base, logger }),
  };
}
