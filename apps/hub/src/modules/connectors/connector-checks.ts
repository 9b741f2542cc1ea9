/**
 * The connectors' periodic check (decision 0040: on the one process holding its lease): every enabled
 * connector checked and its inventory synced, one pass at a time; and the first sync of a new connector, run in
 * the background and awaited on close.
 */
import type { ConnectorKind } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { ConnectorUpstreams } from './connector-upstreams.js';
import { allConnectors, type ConnectorRow } from './connectors.repository.js';

export interface ConnectorChecks {
  /** One pass over every enabled connector of a supported kind. */
  checkAll(): Promise<void>;
  /** The first inventory, so a new connector's assets appear without waiting for the periodic check. */
  syncSoon(row: ConnectorRow): void;
  start(): void;
  /** Stops the timer and waits for the pass and the first syncs still running. */
  close(): Promise<void>;
}

export function createConnectorChecks(deps: {
  db: Kysely<Database>;
  logger: Logger;
  upstreams: Pick<ConnectorUpstreams, 'checkAndSync'>;
  isSupported: (kind: ConnectorKind) => boolean;
  /** 0 turns the periodic check off. */
  checkIntervalMs: number;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}): ConnectorChecks {
  const { db, logger, upstreams } = deps;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  /** Syncs started in the background (after a create), awaited on close. */
  const background = new Set<Promise<void>>();

  async function checkAll(): Promise<void> {
    for (const row of await allConnectors(db)) {
      if (row.enabled !== 1 || !deps.isSupported(row.kind as ConnectorKind)) continue;
      await upstreams.checkAndSync(row).catch((error: unknown) => {
        logger.error({ err: error, connector: row.id }, 'connectors: periodic check failed');
      });
    }
  }

  return {
    checkAll,

    syncSoon(row) {
      const first = upstreams
        .checkAndSync(row)
        .then(() => undefined)
        .catch((error: unknown) => {
          logger.error({ err: error, connector: row.id }, 'connectors: first check failed');
        })
        .finally(() => background.delete(first));
      background.add(first);
    },

    start() {
      if (deps.checkIntervalMs <= 0) return;
      timer = setInterval(() => {
        // One process checks and syncs (its lease): N processes would ask every upstream N times.
        if (deps.runsHere && !deps.runsHere()) return;
        // One pass at a time: a slow upstream delays the next pass, never stacks them.
        running ??= checkAll().finally(() => {
          running = null;
        });
      }, deps.checkIntervalMs);
      timer.unref();
    },

    async close() {
      if (timer) clearInterval(timer);
      await running;
      await Promise.all([...background]);
    },
  };
}
