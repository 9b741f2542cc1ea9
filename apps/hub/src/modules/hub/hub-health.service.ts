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
 * Readiness in one word: stopping, or the first of database, migrations, TLS, cluster bus that is not right. A
 * process cut off from NATS is not ready: a load balancer sends its clients to the others, which can reach the
 * whole fleet.
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
      if (nats.nats === 'down') return { status: 'unready', reason: 'nats', ...nats };
      return { status: 'ready', ...nats };
    },
  };
}

export type HubHealthService = ReturnType<typeof createHubHealthService>;
