import type { BusReadiness, Readiness } from '@svc/protocol';
import type { ClusterBusStatus } from '../../platform/cluster/cluster-bus.js';
import type { DatabaseReadiness } from '../../platform/db/readiness.js';

export interface HubHealthDeps {
  /** The database's answer (platform/db/readiness.ts). */
  database: () => Promise<DatabaseReadiness>;
  /** Whether HTTPS has a certificate to serve; always true when TLS is disabled (a proxy terminates it). */
  tlsLoaded: () => boolean;
  /** The cluster bus's state when processes share one (SVC_NATS_URL); absent for the embedded cluster of one. */
  bus?: () => ClusterBusStatus;
}

/**
 * Readiness in one word: stopping, or the first of database, migrations, TLS that is not right (503), or
 * degraded (200) when only the cluster bus is down. A process cut off from NATS still serves what needs only the
 * database and its own agents; failing it would take every process out of the balancer during a NATS outage,
 * since they all lose the bus together (decision 0054).
 */
export function createHubHealthService(deps: HubHealthDeps) {
  const { bus } = deps;
  let stopping = false;
  return {
    /** From now on /readyz says `stopping`; everything else is served as before (the shutdown drain). */
    markStopping(): void {
      stopping = true;
    },
    async readiness(): Promise<Readiness> {
      const nats: { nats?: BusReadiness } = bus ? { nats: bus().connected ? 'ok' : 'down' } : {};
      if (stopping) return { status: 'unready', reason: 'stopping', ...nats };
      const database = await deps.database();
      if (database !== 'ok') return { status: 'unready', reason: database, ...nats };
      if (!deps.tlsLoaded()) return { status: 'unready', reason: 'tls', ...nats };
      if (nats.nats === 'down') return { status: 'degraded', reason: 'nats', nats: 'down' };
      return { status: 'ready', ...nats };
    },
  };
}

export type HubHealthService = ReturnType<typeof createHubHealthService>;
