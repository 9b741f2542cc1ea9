/**
 * Leases on work that must run on one hub process at a time (decision 0040): the alert evaluator, the
 * connectors' periodic check, retention. A lease is a row of `cluster_leases` (name, holder, expires_at) that
 * its holder renews; another process takes it only once it has expired, with a conditional UPDATE (or an
 * INSERT that does nothing on conflict), so two processes never both hold it in the database.
 *
 * A holder believes it holds a lease only until `renewStart + ttl - margin`: a renewal that is late (an event
 * loop stalled, the database slow) makes it stop first, and the margin covers clocks that disagree by less than
 * it. A cluster of one (the embedded default) holds every lease without touching the database.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database, Executor } from '../db/schema.js';

export interface LeaseKeeperOptions {
  db: Kysely<Database>;
  clock: Clock;
  nodeId: string;
  /** The leases this process competes for. */
  names: readonly string[];
  /** False for a cluster of one: every lease is held, nothing is written. */
  shared: boolean;
  /** How long a lease lasts after a renewal (default 15 s). */
  ttlMs?: number;
  /** How often the leases are renewed or tried for (default 5 s); 0 leaves it to `renew()` (tests). */
  renewMs?: number;
  /** How long before its expiry a holder stops believing it holds a lease (default a third of the ttl). */
  marginMs?: number;
  onError?: (error: unknown) => void;
}

export interface LeaseKeeper {
  /** True when this process holds the lease now: the work it guards may run here. */
  holds(name: string): boolean;
  /** Renews the leases held and tries for the others, once; resolves with the names held after it. */
  renew(): Promise<string[]>;
  /** A first renewal, then the renewal loop. */
  start(): Promise<void>;
  /** Stops renewing and gives the leases back, so another process takes them at its next renewal. */
  close(): Promise<void>;
}

const defaultLeaseTtlMs = 15_000;

/** Takes or renews one lease; true when this node holds it after the statement. */
async function acquireLease(
  db: Executor,
  name: string,
  nodeId: string,
  now: Date,
  ttlMs: number,
): Promise<boolean> {
  const nowIso = now.toISOString();
  const expiresAt = new Date(now.getTime() + ttlMs).toISOString();
  // Renew our own, or take one that expired: the WHERE is checked again on the row PostgreSQL locks, so two
  // takers of one expired lease cannot both match.
  const updated = await db
    .updateTable('cluster_leases')
    .set({ holder: nodeId, expires_at: expiresAt })
    .where('name', '=', name)
    .where((eb) => eb.or([eb('holder', '=', nodeId), eb('expires_at', '<', nowIso)]))
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 1) return true;
  const inserted = await db
    .insertInto('cluster_leases')
    .values({ name, holder: nodeId, expires_at: expiresAt })
    .onConflict((oc) => oc.column('name').doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1;
}

async function releaseLeases(db: Executor, names: readonly string[], nodeId: string): Promise<void> {
  if (names.length === 0) return;
  await db.deleteFrom('cluster_leases').where('name', 'in', names).where('holder', '=', nodeId).execute();
}

export function createLeaseKeeper(options: LeaseKeeperOptions): LeaseKeeper {
  const { db, clock, nodeId, names } = options;
  const ttlMs = options.ttlMs ?? defaultLeaseTtlMs;
  const renewMs = options.renewMs ?? Math.floor(ttlMs / 3);
  const marginMs = options.marginMs ?? Math.floor(ttlMs / 3);
  /** Until when (this process's clock, ms) each lease held may be trusted. */
  const heldUntil = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let renewing: Promise<string[]> | null = null;
  let closed = false;

  async function renewAll(): Promise<string[]> {
    for (const name of names) {
      if (closed) break;
      const started = clock.now();
      try {
        if (await acquireLease(db, name, nodeId, started, ttlMs)) {
          heldUntil.set(name, started.getTime() + ttlMs - marginMs);
        } else {
          heldUntil.delete(name);
        }
      } catch (error) {
        // Not renewed: what is held runs out on its own (heldUntil), never extended by a failure.
        options.onError?.(error);
      }
    }
    return names.filter((name) => keeper.holds(name));
  }

  const keeper: LeaseKeeper = {
    holds(name) {
      if (!options.shared) return !closed;
      const until = heldUntil.get(name);
      return until !== undefined && clock.now().getTime() < until;
    },
    renew() {
      if (!options.shared) return Promise.resolve(closed ? [] : [...names]);
      renewing ??= renewAll().finally(() => {
        renewing = null;
      });
      return renewing;
    },
    async start() {
      if (!options.shared) return;
      await keeper.renew();
      if (renewMs <= 0 || closed) return;
      timer = setInterval(() => {
        void keeper.renew();
      }, renewMs);
      timer.unref();
    },
    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      timer = null;
      if (!options.shared) return;
      await renewing;
      heldUntil.clear();
      await releaseLeases(db, names, nodeId).catch((error: unknown) => options.onError?.(error));
    },
  };
  return keeper;
}
