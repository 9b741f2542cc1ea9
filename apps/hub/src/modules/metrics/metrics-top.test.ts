/**
 * The fleet's top-N (docs/metrics.md, "Busiest assets"): from the latest sample of each asset within the
 * window, ranked by one metric, for the assets the caller may see.
 */
import { describe, expect, it } from 'vitest';
import type { MetricSample, MetricsTop, TopMetric } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useOperations } from '../../testing/operations-app.js';
import { createMetricsStore } from './metrics.store.js';

const start = new Date('2027-02-01T12:00:00.000Z');

function sample(ts: Date, values: Partial<MetricSample>): MetricSample {
  return {
    ts: ts.toISOString(),
    cpu_percent: 0,
    memory_used_bytes: 0,
    memory_total_bytes: 8_000,
    disk_used_bytes: 0,
    disk_total_bytes: 1_000,
    load1: 0,
    net_rx_bytes: 0,
    net_tx_bytes: 0,
    ...values,
  };
}

/** What each asset's latest sample holds, made up so every metric ranks them differently. */
function valuesOf(i: number): Partial<MetricSample> {
  return {
    cpu_percent: (i * 37) % 101,
    memory_used_bytes: ((i * 53) % 97) * 80,
    disk_used_bytes: ((i * 29) % 89) * 10,
    load1: ((i * 17) % 61) / 4,
  };
}

function expectedValue(values: Partial<MetricSample>, metric: TopMetric): number {
  const s = sample(start, values);
  if (metric === 'cpu') return s.cpu_percent;
  if (metric === 'load') return s.load1;
  const [used, size] =
    metric === 'memory'
      ? [s.memory_used_bytes, s.memory_total_bytes]
      : [s.disk_used_bytes, s.disk_total_bytes];
  return Math.round((used / size) * 10_000) / 100;
}

describe.each(databaseTargets())('metrics top-N ($name)', ({ options }) => {
  const use = useOperations(options);

  it('ranks the latest sample of each of many assets, fleet-wide, and a restricted key sees only its own', async () => {
    const { t, ops } = use();
    t.clock.set(start);
    const now = start.getTime();
    const ago = (s: number) => new Date(now - s * 1000);
    const count = 150;
    const assets: { id: string; name: string }[] = [];
    for (let i = 0; i < count; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, count - i) }, (_, j) =>
          t.createAsset({ name: `top-${String(i + j).padStart(3, '0')}` }),
        ),
      );
      assets.push(...batch);
    }
    const store = createMetricsStore({
      db: t.hub.database.db,
      clock: t.clock,
      flushIntervalMs: 0,
      retentionIntervalMs: 0,
    });
    assets.forEach((asset, i) => {
      // An older, higher sample of each asset: only the latest counts.
      store.add(asset.id, [
        sample(ago(120), { cpu_percent: 100, memory_used_bytes: 8_000, disk_used_bytes: 1_000, load1: 99 }),
        sample(ago(10 + (i % 50)), valuesOf(i)),
      ]);
    });
    // Busy, but silent for longer than the window: not among the busiest.
    const stale = await t.createAsset({ name: 'top-stale' });
    store.add(stale.id, [sample(ago(600), { cpu_percent: 100, load1: 99 })]);
    await store.close();

    for (const metric of ['cpu', 'memory', 'disk', 'load'] as const) {
      const res = await ops.request('GET', `/api/v2/metrics/top?metric=${metric}&limit=100`);
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      const top = res.json.data as MetricsTop;
      const expected = assets
        .map((a, i) => ({ ...a, value: expectedValue(valuesOf(i), metric) }))
        .sort((x, y) => y.value - x.value || x.name.localeCompare(y.name))
        .slice(0, 100);
      expect(top.metric).toBe(metric);
      expect(top.assets_reporting).toBe(count);
      expect(top.assets.map((e) => [e.name, e.value])).toEqual(expected.map((e) => [e.name, e.value]));
      expect(top.assets.map((e) => e.asset_id)).not.toContain(stale.id);
    }

    const first = (await ops.request('GET', '/api/v2/metrics/top?metric=cpu&limit=3')).json
      .data as MetricsTop;
    expect(first.assets).toHaveLength(3);
    const i = assets.findIndex((a) => a.id === first.assets[0]?.asset_id);
    expect(first.assets[0]).toEqual({
      asset_id: assets[i]?.id,
      name: assets[i]?.name,
      ts: ago(10 + (i % 50)).toISOString(),
      value: expectedValue(valuesOf(i), 'cpu'),
      cpu_percent: expectedValue(valuesOf(i), 'cpu'),
      memory_used_percent: expectedValue(valuesOf(i), 'memory'),
      disk_used_percent: expectedValue(valuesOf(i), 'disk'),
      load1: expectedValue(valuesOf(i), 'load'),
    });

    // A key limited to a few assets ranks only those, whatever the rest of the fleet does.
    const mine = [assets[3], assets[40], assets[77]].flatMap((a) => (a ? [a.id] : []));
    const key = await t.createKey({ role: 'viewer', scopes: ['metrics:read'], allowed_assets: mine });
    const scoped = await ops.request('GET', '/api/v2/metrics/top?metric=cpu&limit=100', { key: key.raw_key });
    expect(scoped.status).toBe(200);
    const scopedTop = scoped.json.data as MetricsTop;
    expect(scopedTop.assets_reporting).toBe(3);
    expect(scopedTop.assets.map((e) => e.asset_id).sort()).toEqual([...mine].sort());

    const noScope = await t.createKey({ role: 'viewer', scopes: ['assets:read'] });
    expect(
      (await ops.request('GET', '/api/v2/metrics/top?metric=cpu', { key: noScope.raw_key })).status,
    ).toBe(403);
    for (const query of ['metric=heat', 'metric=cpu&limit=101', 'metric=cpu&limit=0', '']) {
      const bad = await ops.request('GET', `/api/v2/metrics/top?${query}`);
      expect(bad.status, query).toBe(400);
    }
  });
});
