import { describe, expect, it } from 'vitest';
import type { MetricSample } from '@svc/protocol';
import {
  computeSample,
  MetricsBuffer,
  MetricsCollector,
  parseCpuTimes,
  parseMeminfo,
  parseNetDev,
  readLinuxCounters,
  type Counters,
} from './metrics.js';

const statText = (user: number, idle: number) =>
  `cpu  ${user} 0 100 ${idle} 50 0 0 0 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 1\nbtime 1700000000\n`;

describe('parsers', () => {
  it('reads CPU ticks: idle and iowait are idle', () => {
    expect(parseCpuTimes(statText(400, 1000))).toEqual({ busy: 500, total: 1550 });
    expect(parseCpuTimes('nothing')).toBeNull();
  });

  it('reads memory in bytes, falling back when MemAvailable is missing', () => {
    expect(parseMeminfo('MemTotal:       16000 kB\nMemFree:  1000 kB\nMemAvailable:   12000 kB\n')).toEqual({
      total: 16000 * 1024,
      available: 12000 * 1024,
    });
    expect(parseMeminfo('MemTotal: 1000 kB\nMemFree: 100 kB\nBuffers: 50 kB\nCached: 250 kB\n')).toEqual({
      total: 1000 * 1024,
      available: 400 * 1024,
    });
  });

  it('sums network bytes over every interface but loopback', () => {
    const text = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 9999999     100    0    0    0     0          0         0  9999999     100    0    0    0     0       0          0
  eth0: 1000      10    0    0    0     0          0         0     2000      20    0    0    0     0       0          0
 wlan0: 300       3    0    0    0     0          0         0      400       4    0    0    0     0       0          0
`;
    expect(parseNetDev(text)).toEqual({ rx: 1300, tx: 2400 });
  });
});

describe('samples', () => {
  const counters = (busy: number, total: number, rx: number, tx: number): Counters => ({
    cpu: { busy, total },
    memory: { total: 8000, available: 3000 },
    disk: { total: 100, used: 40 },
    load1: 0.456,
    net: { rx, tx },
  });

  it('computes CPU % and traffic from the difference of two readings', () => {
    const sample = computeSample(
      counters(1000, 4000, 5000, 7000),
      counters(1250, 4500, 5600, 7100),
      new Date('2026-01-01T00:00:00Z'),
    );
    expect(sample).toEqual({
      ts: '2026-01-01T00:00:00.000Z',
      cpu_percent: 50,
      memory_used_bytes: 5000,
      memory_total_bytes: 8000,
      disk_used_bytes: 40,
      disk_total_bytes: 100,
      load1: 0.46,
      net_rx_bytes: 600,
      net_tx_bytes: 100,
    } satisfies MetricSample);
  });

  it('restarts a counter that went backwards instead of going negative', () => {
    const sample = computeSample(
      counters(1000, 4000, 5000, 7000),
      counters(1100, 4100, 200, 300),
      new Date(),
    );
    expect([sample.net_rx_bytes, sample.net_tx_bytes]).toEqual([200, 300]);
  });

  it('collects real samples from this machine', async () => {
    const collector = new MetricsCollector(() => readLinuxCounters());
    await collector.sample();
    const sample = await collector.sample();
    expect(sample.memory_total_bytes).toBeGreaterThan(0);
    expect(sample.disk_total_bytes).toBeGreaterThan(0);
    expect(sample.cpu_percent).toBeGreaterThanOrEqual(0);
    expect(sample.cpu_percent).toBeLessThanOrEqual(100);
  });
});

describe('buffer', () => {
  const sample = (n: number): MetricSample => ({
    ts: new Date(n * 1000).toISOString(),
    cpu_percent: n,
    memory_used_bytes: 0,
    memory_total_bytes: 0,
    disk_used_bytes: 0,
    disk_total_bytes: 0,
    load1: 0,
    net_rx_bytes: 0,
    net_tx_bytes: 0,
  });

  it('keeps the newest samples when full and counts what it dropped', () => {
    const buffer = new MetricsBuffer(3);
    for (let i = 1; i <= 5; i++) buffer.push(sample(i));
    expect(buffer.dropped).toBe(2);
    expect(buffer.take(10).map((s) => s.cpu_percent)).toEqual([3, 4, 5]);
    expect(buffer.size).toBe(0);
  });

  it('puts unsent samples back ahead of newer ones', () => {
    const buffer = new MetricsBuffer(10);
    for (let i = 1; i <= 4; i++) buffer.push(sample(i));
    const taken = buffer.take(2);
    buffer.push(sample(5));
    buffer.putBack(taken);
    expect(buffer.take(10).map((s) => s.cpu_percent)).toEqual([1, 2, 3, 4, 5]);
  });
});
