import type { HubStatus, McpStatus } from '@svc/protocol';
import type { Clock } from '../../platform/clock.js';
import type { DatabaseDialect } from '../../platform/db/database.js';
import { hubVersion } from '../../platform/version.js';
import type { AssetService } from '../assets/assets.service.js';
import type { HubClusterService } from './hub-cluster.service.js';

export interface HubStatusDeps {
  assets: Pick<AssetService, 'countByStatus'>;
  clock: Clock;
  dialect: DatabaseDialect;
  startedAt: Date;
  connectedAgents: () => number;
  /** The metrics intake's counters (metrics-budget.ts, metrics.store.ts, metrics-purger.ts). */
  metrics?: () => HubStatus['metrics'];
  cluster: HubClusterService;
  /** The MCP server's policy and use; reported off and unused where it is not wired (some tests). */
  mcp?: () => Promise<McpStatus>;
  /** The zone reported as the hub's; this process's own when absent. */
  timeZone?: string;
}

export function createHubStatusService(deps: HubStatusDeps) {
  // Intl resolves TZ (or the machine's zone) once per process; it does not change while the hub runs.
  const timeZone = deps.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return {
    async status(): Promise<HubStatus> {
      const now = deps.clock.now();
      let byStatus = { online: 0, offline: 0, unknown: 0 };
      let healthy = true;
      try {
        byStatus = await deps.assets.countByStatus(null);
      } catch {
        healthy = false;
      }
      const { online, offline, unknown } = byStatus;
      const cluster = await deps.cluster.status();
      const mcp = (await deps.mcp?.()) ?? { enabled: false, tool_calls_24h: 0 };
      return {
        status: healthy && !cluster.degraded ? 'ok' : 'degraded',
        version: hubVersion,
        started_at: deps.startedAt.toISOString(),
        uptime_seconds: Math.max(0, Math.floor((now.getTime() - deps.startedAt.getTime()) / 1000)),
        database: deps.dialect,
        assets: { total: online + offline + unknown, online, offline, unknown },
        agents_connected: deps.connectedAgents(),
        metrics: deps.metrics?.() ?? { samples_dropped: 0, samples_lost: 0, purges_pending: 0 },
        cluster,
        mcp,
        time: now.toISOString(),
        time_zone: timeZone,
      };
    },
  };
}

export type HubStatusService = ReturnType<typeof createHubStatusService>;
