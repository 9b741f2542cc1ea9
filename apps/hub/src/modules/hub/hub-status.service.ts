import type { HubStatus } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { DatabaseDialect } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import { countAssetsByStatus } from '../assets/assets.repository.js';

export const hubVersion = '0.1.0';

export function createHubStatusService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  dialect: DatabaseDialect;
  startedAt: Date;
  connectedAgents: () => number;
  /** The metrics intake's counters (metrics-budget.ts, metrics.store.ts, metrics-purger.ts). */
  metrics?: () => HubStatus['metrics'];
}) {
  return {
    async status(): Promise<HubStatus> {
      const now = deps.clock.now();
      let byStatus: Record<string, number>;
      let healthy = true;
      try {
        byStatus = await countAssetsByStatus(deps.db);
      } catch {
        byStatus = {};
        healthy = false;
      }
      const online = byStatus.online ?? 0;
      const offline = byStatus.offline ?? 0;
      const unknown = byStatus.unknown ?? 0;
      return {
        status: healthy ? 'ok' : 'degraded',
        version: hubVersion,
        started_at: deps.startedAt.toISOString(),
        uptime_seconds: Math.max(0, Math.floor((now.getTime() - deps.startedAt.getTime()) / 1000)),
        database: deps.dialect,
        assets: { total: online + offline + unknown, online, offline, unknown },
        agents_connected: deps.connectedAgents(),
        metrics: deps.metrics?.() ?? { samples_dropped: 0, samples_lost: 0, purges_pending: 0 },
        time: now.toISOString(),
      };
    },
  };
}

export type HubStatusService = ReturnType<typeof createHubStatusService>;
