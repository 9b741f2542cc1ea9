import type { Readiness } from '@svc/protocol';
import type { DatabaseReadiness } from '../../platform/db/readiness.js';

export interface HubHealthDeps {
  /** The database's answer (platform/db/readiness.ts). */
  database: () => Promise<DatabaseReadiness>;
  /** Whether HTTPS has a certificate to serve; always true when TLS is disabled (a proxy terminates it). */
  tlsLoaded: () => boolean;
}

/** Readiness in one word: the first of database, migrations, TLS that is not right. */
export function createHubHealthService(deps: HubHealthDeps) {
  return {
    async readiness(): Promise<Readiness> {
      const database = await deps.database();
      if (database !== 'ok') return { status: 'unready', reason: database };
      if (!deps.tlsLoaded()) return { status: 'unready', reason: 'tls' };
      return { status: 'ready' };
    },
  };
}

export type HubHealthService = ReturnType<typeof createHubHealthService>;
