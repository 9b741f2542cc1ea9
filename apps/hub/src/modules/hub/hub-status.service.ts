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
}

export function createHubStatusService(deps: HubStatusDeps) {
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
      };
    },
  };
}

export type HubStatusService = ReturnType<typeof createHubStatusService>;
