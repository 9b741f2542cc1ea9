import { describe, expect, it } from 'vitest';
import type { MetricBucket, MetricSample } from '@svc/protocol';
import { bucketSeries, chartSeries, fetchSamples, samplesPerCall, seriesFigures } from './metrics-series';

function sample(ts: string, overrides: Partial<MetricSample> = {}): MetricSample {
  return {
    ts,
    cpu_percent: 10,
    memory_used_bytes: 1,
    memory_total_bytes: 4,
    disk_used_bytes: 50,
    disk_total_bytes: 100,
    load1: 0.5,
    net_rx_bytes: 1000,
    net_tx_bytes: 500,
    ...overrides,
  };
}

const at = (second: number) => new Date(Date.UTC(2026, 10, 25, 12, 0, second)).toISOString();

describe('metric series for charts', () => {
  it('turns samples into percentages and per-second network rates', () => {
    const series = chartSeries([sample(at(0)), sample(at(10)), sample(at(20), { net_rx_bytes: 5000 })]);

    expect(series.times).toEqual([0, 10, 20].map((s) => Date.parse(at(s)) / 1000));
    expect(series.memory).toEqual([25, 25, 25]);
    expect(series.disk).toEqual([50, 50, 50]);
    // The first sample has no span before it; then bytes over the 10 s since the previous one.
    expect(series.rx).toEqual([null, 100, 500]);
    expect(series.tx).toEqual([null, 50, 50]);
  });

  it('breaks the line where the agent was silent', () => {
    const series = chartSeries([sample(at(0)), sample(at(10)), sample(at(20)), sample(at(300))]);

    expect(series.times).toHaveLength(5);
    expect(series.cpu).toEqual([10, 10, 10, null, 10]);
    // No rate across the gap.
    expect(series.rx.at(-1)).toBeNull();
  });

  it('gives latest, mean and highest without the gaps', () => {
    expect(seriesFigures([1, null, 3, 2])).toEqual({ latest: 2, mean: 2, max: 3 });
    expect(seriesFigures([null])).toEqual({ latest: null, mean: null, max: null });
  });
});

describe('fetching a range page by page', () => {
  it('follows on from the last sample while pages come back full, without repeating it', async () => {
    const all = Array.from({ length: samplesPerCall + 3 }, (_, i) =>
      sample(new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()),
    );
    const froms: string[] = [];
    const call = ({ from, limit }: { from: string; limit: number }) => {
      froms.push(from);
      return Promise.resolve(all.filter((s) => s.ts >= from).slice(0, limit));
    };

    const fetched = await fetchSamples(call, new Date(all[0]!.ts), new Date(all.at(-1)!.ts));

    expect(fetched.truncated).toBe(false);
    expect(fetched.samples).toHaveLength(all.length);
    expect(new Set(fetched.samples.map((s) => s.ts)).size).toBe(all.length);
    expect(froms).toEqual([all[0]!.ts, all[samplesPerCall - 1]!.ts]);
  });

  it('stops after a bounded number of calls and says the range was cut', async () => {
    let calls = 0;
    const call = ({ from, limit }: { from: string; limit: number }) => {
      calls += 1;
      const start = Date.parse(from);
      return Promise.resolve(
        Array.from({ length: limit }, (_, i) => sample(new Date(start + i * 1000).toISOString())),
      );
    };

    const fetched = await fetchSamples(call, new Date(0), new Date());

    expect(calls).toBe(5);
    expect(fetched.truncated).toBe(true);
  });
});

describe('bucketed series for charts', () => {
  const aggregate = (min: number, max: number, avg: number) => ({ min, max, avg });
  const bucket = (t: string, cpu: number): MetricBucket => ({
    t,
    n: 6,
    cpu_percent: aggregate(cpu - 5, cpu + 5, cpu),
    memory_used_bytes: aggregate(1, 3, 2),
    memory_total_bytes: aggregate(4, 4, 4),
    disk_used_bytes: aggregate(50, 50, 50),
    disk_total_bytes: aggregate(100, 100, 100),
    load1: aggregate(0.1, 0.9, 0.5),
    net_rx_bytes: aggregate(600, 6000, 1000),
    net_tx_bytes: aggregate(0, 0, 0),
  });

  it('draws each bucket at its middle with its min–max band, and breaks where steps have no bucket', () => {
    const series = bucketSeries([bucket(at(0), 20), bucket(at(60), 30), bucket(at(240), 40)], 60);

    const t0 = Date.parse(at(0)) / 1000;
    expect(series.times).toEqual([t0 + 30, t0 + 90, t0 + 150, t0 + 270]);
    expect(series.cpu).toEqual([20, 30, null, 40]);
    expect(series.bands?.cpu).toEqual({ lo: [15, 25, null, 35], hi: [25, 35, null, 45] });
    expect(series.memory).toEqual([50, 50, null, 50]);
    expect(series.bands?.memory).toEqual({ lo: [25, 25, null, 25], hi: [75, 75, null, 75] });
    // 6 samples of 1,000 bytes on average over a 60 s step: 100 bytes/s; one sample every 10 s.
    expect(series.rx[0]).toBe(100);
    expect(series.bands?.rx.hi[0]).toBe(600);
    expect(series.gaps).toEqual([[t0 + 120, t0 + 240]]);
  });
});
