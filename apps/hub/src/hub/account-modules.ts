/**
 * The modules of who may do what, the fleet's inventory and the hub's own configuration and status, in
 * composition order (hub/modules.ts). A new area of this kind is one entry in the returned list.
 */
import { mcpToolCallAction } from '@svc/protocol';
import { checkDatabaseReadiness } from '../platform/db/readiness.js';
import { createAgentsModule } from '../modules/agents/agents.module.js';
import { createAssetsModule } from '../modules/assets/assets.module.js';
import { createAuditModule } from '../modules/audit/audit.module.js';
import { createAuthModule } from '../modules/auth/auth.module.js';
import { createEnrollmentModule } from '../modules/enrollment/enrollment.module.js';
import { createGroupsModule } from '../modules/groups/groups.module.js';
import { createHubModule } from '../modules/hub/hub.module.js';
import { createKeysModule } from '../modules/keys/keys.module.js';
import { createMetricsModule } from '../modules/metrics/metrics.module.js';
import { createSearchModule } from '../modules/search/search.module.js';
import { createSettingsModule } from '../modules/settings/settings.module.js';
import { createStatusModule } from '../modules/status/status.module.js';
import { createTlsModule } from '../modules/tls/tls.module.js';
import { createUsersModule } from '../modules/users/users.module.js';
import { createWhoamiModule } from '../modules/whoami/whoami.module.js';
import { baseOf, type ModuleParts } from './module-parts.js';

const dayMs = 24 * 60 * 60 * 1000;

/** Who may do what, the fleet's inventory and the hub's own configuration. */
export function createAccountModules(
  parts: ModuleParts,
  later: Pick<Parameters<typeof createUsersModule>[0], 'schedules' | 'userData'>,
) {
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
    keys: keys.services.apiKeys,
    schedules: later.schedules,
    userData: later.userData,
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
      assets: assetService,
      gateway,
      credentials: enrollment.services.enrollment,
      metricsCounts: (id) => metrics.services.budget.countsFor(id),
    }),
    hub: createStatusOfHubModule(parts, assets, metrics, tlsModule, audit),
  };
}

/** The hub's own status and health (modules/hub). */
function createStatusOfHubModule(
  parts: ModuleParts,
  assets: ReturnType<typeof createAssetsModule>,
  metrics: ReturnType<typeof createMetricsModule>,
  tlsModule: ReturnType<typeof createTlsModule>,
  audit: ReturnType<typeof createAuditModule>,
) {
  const { config, clock, database, tls, runtimeSettings } = parts;
  const { bus, registry } = parts.cluster;
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
    cluster: { db: database.db, bus, registry },
    mcp: async () => ({
      enabled: runtimeSettings.get('policy.mcp_enabled'),
      tool_calls_24h: await audit.services.audit.countSince(
        mcpToolCallAction,
        new Date(clock.now().getTime() - dayMs),
      ),
    }),
    tls: tlsModule.services.tls,
    health: {
      database: () => checkDatabaseReadiness(database.db),
      tlsLoaded: () => config.tlsMode === 'disabled' || tls.secureContext() !== null,
      ...(bus.shared ? { bus: () => bus.status() } : {}),
    },
    telemetry: parts.telemetry,
  });
}

export type AccountModules = ReturnType<typeof createAccountModules>;
