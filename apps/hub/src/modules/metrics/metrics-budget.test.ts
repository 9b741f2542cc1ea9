import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../platform/clock.js';
import { createMetricsBudget, metricsBudgetFor, type MetricsBudgetOptions } from './metrics-budget.js';
import { metricSample } from '../../testing/metric-sample.js';

const start = new Date('2026-11-23T12:00:00.000Z');

/** A sink that keeps what reaches it, and a logger that keeps its lines. */
function rig(options: Partial<MetricsBudgetOptions> = {}) {
  const clock = new ManualClock(start);
  const stored: { assetId: string; ts: string }[] = [];
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const budget = createMetricsBudget({
    sink: {
      add(assetId, samples) {
        for (const s of samples) stored.push({ assetId, ts: s.ts });
      },
    },
    clock,
    logger: pino({ level: 'info' }, stream),
    collectIntervalS: 60,
    sweepTimer: false,
    ...options,
  });
  return { clock, stored, lines, budget };
}

describe('metrics budget', () => {
  it('derives one sample per second of the collect interval, and a burst of a backlog plus one interval', () => {
    expect(metricsBudgetFor(60)).toEqual({ samplesPerInterval: 60, burstSamples: 2_060 });
    expect(metricsBudgetFor(10)).toEqual({ samplesPerInterval: 10, burstSamples: 2_010 });
  });

  it('takes at most the burst from a flood of distinct timestamps, then the interval rate; counts the rest', () => {
    const { clock, stored, budget } = rig();
    const now = start.getTime();
    // 20 frames of 500 samples, a millisecond apart, all in the past minute: 10,000 samples at once.
    for (let frame = 0; frame < 20; frame++) {
      budget.add(
        'a',
        Array.from({ length: 500 }, (_, i) => metricSample(now - 60_000 + frame * 500 + i)),
      );
    }
    expect(stored).toHaveLength(2_060);
    expect(budget.countsFor('a')).toEqual({
      accepted: 2_060,
      over_budget: 7_940,
      duplicate: 0,
      out_of_window: 0,
    });

    // A minute later the bucket holds one interval's worth again: 60 more, not 500.
    clock.advance(60_000);
    budget.add(
      'a',
      Array.from({ length: 500 }, (_, i) => metricSample(now + i)),
    );
    expect(stored).toHaveLength(2_120);
    expect(budget.countsFor('a').over_budget).toBe(7_940 + 440);
  });

  it('keeps one sample per timestamp: repeats and replays of older timestamps are dropped', () => {
    const { stored, budget } = rig();
    const ts = start.getTime() - 1_000;
    for (let frame = 0; frame < 100; frame++)
      budget.add(
        'a',
        Array.from({ length: 500 }, () => metricSample(ts)),
      );
    budget.add('a', [metricSample(ts - 5_000), metricSample(ts + 1)]);

    expect(stored.map((s) => s.ts)).toEqual([new Date(ts).toISOString(), new Date(ts + 1).toISOString()]);
    expect(budget.countsFor('a')).toEqual({
      accepted: 2,
      over_budget: 0,
      duplicate: 50_000,
      out_of_window: 0,
    });
  });

  it('refuses timestamps far ahead, before the retention, or unreadable', () => {
    const { stored, budget } = rig();
    const now = start.getTime();
    budget.add('a', [
      metricSample(now + 11 * 60_000),
      metricSample(now - 8 * 24 * 60 * 60_000),
      { ...metricSample(now), ts: 'yesterday' },
      metricSample(now + 9 * 60_000),
    ]);
    expect(stored).toEqual([{ assetId: 'a', ts: new Date(now + 9 * 60_000).toISOString() }]);
    expect(budget.countsFor('a')).toEqual({ accepted: 1, over_budget: 0, duplicate: 0, out_of_window: 3 });
  });

  it('gives each agent its own budget, and a real agent with a backlog loses nothing', () => {
    const { clock, stored, budget } = rig();
    const now = start.getTime();
    budget.add(
      'flood',
      Array.from({ length: 500 }, (_, i) => metricSample(now - 1_000 + i)),
    );
    for (let frame = 0; frame < 10; frame++)
      budget.add(
        'flood',
        Array.from({ length: 500 }, (_, i) => metricSample(now + frame * 500 + i)),
      );
    // A real agent back after 5.5 hours offline: its whole backlog (one sample per 10 s) in four frames…
    const backlog = Array.from({ length: 2_000 }, (_, i) => metricSample(now - (2_000 - i) * 10_000));
    for (let i = 0; i < backlog.length; i += 500) budget.add('real', backlog.slice(i, i + 500));
    // …then a day of samples every 10 s, as they come.
    for (let i = 1; i <= 8_640; i++) {
      clock.advance(10_000);
      budget.add('real', [metricSample(clock.now().getTime())]);
    }
    expect(budget.countsFor('real')).toEqual({
      accepted: 10_640,
      over_budget: 0,
      duplicate: 0,
      out_of_window: 0,
    });
    expect(budget.countsFor('flood').accepted).toBe(2_060);
    expect(stored.filter((s) => s.assetId === 'real')).toHaveLength(10_640);
    expect(budget.totals()).toEqual({
      accepted: 12_700,
      over_budget: 5_500 - 2_060,
      duplicate: 0,
      out_of_window: 0,
    });
  });

  it('logs drops summarized: one line per agent per minute at most, with the counts', () => {
    const { clock, lines, budget } = rig();
    const now = start.getTime();
    const ts = now - 1_000;
    // 1,000 frames of repeats within the same minute: one line at the first, the rest summed later.
    for (let frame = 0; frame < 1_000; frame++) budget.add('a', [metricSample(ts), metricSample(ts)]);
    budget.add('b', [metricSample(now + 3_600_000)]);
    expect(lines.map((l) => [l.asset_id, l.duplicate, l.out_of_window])).toEqual([
      ['a', 1, 0],
      ['b', 0, 1],
    ]);
    budget.sweep();
    expect(lines).toHaveLength(2);

    clock.advance(60_000);
    budget.sweep();
    budget.sweep();
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatchObject({ asset_id: 'a', duplicate: 1_998, over_budget: 0, out_of_window: 0 });
    expect(lines[2]?.msg).toBe('agent metric samples dropped');
  });

  it('forgets a deleted asset', () => {
    const { stored, budget } = rig();
    const ts = start.getTime() - 1_000;
    budget.add('a', [metricSample(ts)]);
    budget.forget('a');
    budget.add('a', [metricSample(ts)]);
    expect(stored).toHaveLength(2);
  });
});
