/**
 * The history of a deleted asset goes in bounded batches after the delete answered, and a purge a stopped hub
 * left unfinished is finished by the next one. On SQLite, and on PostgreSQL when SVC_TEST_DATABASE_URL is set.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { systemOwnerContext } from '../../access/principal.js';
import { findAsset } from '../assets/assets.repository.js';
import { createAssetService, type AssetService } from '../assets/assets.service.js';
import { createInProcessEventBus } from '../../platform/event-bus.js';
import { createMetricsPurger, type MetricsPurger } from './metrics-purger.js';
import { metricSample } from '../../testing/metric-sample.js';

/** Writes `count` samples for the asset straight into the store (no budget): half of them stamped alike. */
async function seed(t: TestHub, assetId: string, count: number): Promise<void> {
  const now = t.clock.now().getTime();
  const samples = Array.from({ length: count }, (_, i) =>
    metricSample(i % 2 === 0 ? now - 60_000 : now - i * 10),
  );
  for (let i = 0; i < samples.length; i += 500) t.hub.metrics.store.add(assetId, samples.slice(i, i + 500));
  await t.hub.metrics.store.flush();
}

async function samplesOf(t: TestHub, assetId: string): Promise<number> {
  const row = await t.hub.database.db
    .selectFrom('metric_samples')
    .select(sql<string | number>`count(*)`.as('n'))
    .where('asset_id', '=', assetId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A pause between batches that waits for the test: it records what was deleted when each pause began. */
function gate() {
  const waiting: (() => void)[] = [];
  const seenAt: number[] = [];
  let open = false;
  return {
    seenAt,
    pause(purger: () => MetricsPurger): () => Promise<void> {
      return () => {
        seenAt.push(purger().deleted());
        if (open) return Promise.resolve();
        return new Promise<void>((resolve) => waiting.push(resolve));
      };
    },
    async reached(pauses: number): Promise<void> {
      for (let i = 0; i < 2_000 && seenAt.length < pauses; i++) await new Promise((r) => setTimeout(r, 5));
      expect(seenAt.length).toBeGreaterThanOrEqual(pauses);
    },
    step(): void {
      waiting.shift()?.();
    },
    openAll(): void {
      open = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
  };
}

/**
 * An asset service whose deletions reach only this purger (as the metrics module's subscriber does in the
 * hub), on a bus of its own so that the hub's own purger stays out of the count.
 */
function assetsPurgingWith(t: TestHub, purger: MetricsPurger): AssetService {
  const events = createInProcessEventBus({ clock: t.clock });
  events.subscribe(
    (event) => {
      purger.purge(event.data.asset_id);
    },
    { types: ['asset.deleted'] },
  );
  return createAssetService({ db: t.hub.database.db, clock: t.clock, audit: t.hub.services.audit, events });
}

describe.each(databaseTargets())('metrics purger ($name)', ({ options }) => {
  const use = useTestHub(options, 'per-test');

  function purgerFor(t: TestHub, pause: () => Promise<void>): MetricsPurger {
    return createMetricsPurger({
      db: t.hub.database.db,
      dialect: t.hub.database.dialect,
      flush: () => t.hub.metrics.store.settled(),
      assets: t.hub.services.assets,
      batchRows: 1_000,
      pause,
      sweepIntervalMs: 0,
    });
  }

  it('answers the delete first, then deletes the history in batches of at most batchRows; others keep theirs', async () => {
    const t = use();
    const doomed = await t.createAsset();
    const kept = await t.createAsset();
    await seed(t, doomed.id, 12_000);
    await seed(t, kept.id, 300);
    const g = gate();
    const purger: MetricsPurger = purgerFor(
      t,
      g.pause(() => purger),
    );
    const assets = assetsPurgingWith(t, purger);

    await assets.remove(systemOwnerContext(), doomed.id);

    // Answered: the asset is gone from reads, its history is not (at most one batch went before the first pause).
    expect(await findAsset(t.hub.database.db, doomed.id)).toBeUndefined();
    const metrics = await t.request('GET', `/api/v2/assets/${doomed.id}/metrics`);
    expect(metrics.status).toBe(404);
    expect(await samplesOf(t, doomed.id)).toBeGreaterThanOrEqual(11_000);
    expect(purger.pending()).toBe(1);

    await g.reached(1);
    expect(await samplesOf(t, doomed.id)).toBe(11_000);
    g.step();
    await g.reached(2);
    expect(await samplesOf(t, doomed.id)).toBe(10_000);

    g.openAll();
    await purger.idle();
    expect(await samplesOf(t, doomed.id)).toBe(0);
    expect(await samplesOf(t, kept.id)).toBe(300);
    expect(purger.pending()).toBe(0);
    // Twelve full batches of 1,000 (6,000 of them stamped alike), each followed by a pause.
    expect(g.seenAt).toEqual(Array.from({ length: 12 }, (_, i) => (i + 1) * 1_000));
    await purger.close();
  });

  it('a purge a stopped hub left halfway is found and finished by the next start', async () => {
    const t = use();
    const doomed = await t.createAsset();
    const kept = await t.createAsset();
    await seed(t, doomed.id, 5_000);
    await seed(t, kept.id, 200);
    const g = gate();
    const first: MetricsPurger = purgerFor(
      t,
      g.pause(() => first),
    );
    const assets = assetsPurgingWith(t, first);
    await assets.remove(systemOwnerContext(), doomed.id);
    await g.reached(1);
    // The hub stops after one batch.
    const closing = first.close();
    g.openAll();
    await closing;
    expect(await samplesOf(t, doomed.id)).toBe(4_000);

    const next = purgerFor(t, () => Promise.resolve());
    next.start();
    await next.idle();
    expect(await samplesOf(t, doomed.id)).toBe(0);
    expect(await samplesOf(t, kept.id)).toBe(200);
    expect(next.deleted()).toBe(4_000);
    await next.close();
  });

  it('the sweep takes only samples of assets that no longer exist, across many assets', async () => {
    const t = use();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await t.createAsset()).id);
    for (const id of ids) await seed(t, id, 20);
    // Gone without a purge (as a hub killed right after the delete committed leaves them).
    const gone = ids.filter((_, i) => i % 3 === 0);
    await t.hub.database.db.deleteFrom('assets').where('id', 'in', gone).execute();

    const purger = purgerFor(t, () => Promise.resolve());
    expect(await purger.sweep()).toBe(gone.length);
    await purger.idle();
    for (const id of ids) expect(await samplesOf(t, id)).toBe(gone.includes(id) ? 0 : 20);
    await purger.close();
  });
});
