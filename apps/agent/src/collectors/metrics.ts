/**
 * Metrics: CPU from /proc/stat deltas, memory from /proc/meminfo, the root filesystem via statfs, load1, and
 * network bytes from /proc/net/dev. One sample per collect interval; samples wait in a bounded buffer while
 * the hub is unreachable (the oldest go first when it is full).
 *
 * `net_rx_bytes` / `net_tx_bytes` are the bytes received and sent (all interfaces but loopback) since the
 * previous sample, so a sum over a range is the traffic in that range. `cpu_percent` is the whole machine,
 * 0–100, over the same span.
 */
import { readFile, statfs } from '../platform/fs-async.js';
import os from 'node:os';
import type { MetricSample } from '@svc/protocol';

export interface Counters {
  cpu: { busy: number; total: number } | null;
  memory: { total: number; available: number } | null;
  disk: { total: number; used: number } | null;
  load1: number;
  net: { rx: number; tx: number } | null;
}

/** The aggregate `cpu` line of /proc/stat, in ticks; idle includes iowait. */
export function parseCpuTimes(text: string): { busy: number; total: number } | null {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  const values = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest and guest_nice are already inside user and nice)
  const fields = values.slice(0, 8);
  if (fields.length < 4 || fields.some((v) => !Number.isFinite(v))) return null;
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** MemTotal and MemAvailable (kB in the file), in bytes. */
export function parseMeminfo(text: string): { total: number; available: number } | null {
  const field = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+)\\s*kB`, 'm').exec(text);
    return match ? Number(match[1]) * 1024 : null;
  };
  const total = field('MemTotal');
  // Kernels before 3.14 have no MemAvailable: approximate with free + buffers + cached.
  const available =
    field('MemAvailable') ?? (field('MemFree') ?? 0) + (field('Buffers') ?? 0) + (field('Cached') ?? 0);
  return total === null ? null : { total, available: Math.min(available, total) };
}

/** Total bytes received and sent over every interface except loopback. */
export function parseNetDev(text: string): { rx: number; tx: number } | null {
  let rx = 0;
  let tx = 0;
  let seen = false;
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    const values = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    if (name === 'lo' || values.length < 9) continue;
    rx += values[0] ?? 0;
    tx += values[8] ?? 0;
    seen = true;
  }
  return seen ? { rx, tx } : null;
}

export async function readLinuxCounters(procRoot = '/proc', rootMount = '/'): Promise<Counters> {
  const [stat, meminfo, netdev, disk] = await Promise.all([
    readFile(`${procRoot}/stat`, 'utf8').catch(() => ''),
    readFile(`${procRoot}/meminfo`, 'utf8').catch(() => ''),
    readFile(`${procRoot}/net/dev`, 'utf8').catch(() => ''),
    statfs(rootMount).catch(() => null),
  ]);
  return {
    cpu: parseCpuTimes(stat),
    memory: parseMeminfo(meminfo),
    disk: disk
      ? { total: disk.blocks * disk.bsize, used: Math.max(0, (disk.blocks - disk.bfree) * disk.bsize) }
      : null,
    load1: os.loadavg()[0] ?? 0,
    net: parseNetDev(netdev),
  };
}

/** One sample from two readings (the first sample of a run compares with zero: since boot). */
export function computeSample(previous: Counters | null, current: Counters, ts: Date): MetricSample {
  const delta = (now: number | undefined, before: number | undefined) =>
    Math.max(0, (now ?? 0) - (before ?? 0));
  const busy = delta(current.cpu?.busy, previous?.cpu?.busy);
  const total = delta(current.cpu?.total, previous?.cpu?.total);
  const memoryTotal = current.memory?.total ?? 0;
  return {
    ts: ts.toISOString(),
    cpu_percent: total > 0 ? Math.round((busy / total) * 1000) / 10 : 0,
    memory_used_bytes: Math.max(0, memoryTotal - (current.memory?.available ?? memoryTotal)),
    memory_total_bytes: memoryTotal,
    disk_used_bytes: current.disk?.used ?? 0,
    disk_total_bytes: current.disk?.total ?? 0,
    load1: Math.max(0, Math.round(current.load1 * 100) / 100),
    // A counter that went backwards (reboot, interface gone) restarts from the new value.
    net_rx_bytes:
      current.net && previous?.net && current.net.rx < previous.net.rx
        ? current.net.rx
        : delta(current.net?.rx, previous?.net?.rx),
    net_tx_bytes:
      current.net && previous?.net && current.net.tx < previous.net.tx
        ? current.net.tx
        : delta(current.net?.tx, previous?.net?.tx),
  };
}

export class MetricsCollector {
  private previous: Counters | null = null;

  constructor(
    private readonly read: () => Promise<Counters>,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async sample(): Promise<MetricSample> {
    const current = await this.read();
    const sample = computeSample(this.previous, current, this.now());
    this.previous = current;
    return sample;
  }
}

/** Samples waiting for the hub; bounded, dropping the oldest. */
export class MetricsBuffer {
  private samples: MetricSample[] = [];
  dropped = 0;

  constructor(readonly capacity = 2_000) {}

  push(sample: MetricSample): void {
    this.samples.push(sample);
    if (this.samples.length > this.capacity) {
      this.dropped += this.samples.length - this.capacity;
      this.samples = this.samples.slice(-this.capacity);
    }
  }

  get size(): number {
    return this.samples.length;
  }

  /** Takes up to `max` of the oldest samples. */
  take(max: number): MetricSample[] {
    return this.samples.splice(0, max);
  }

  /** Puts back samples that could not be sent, ahead of newer ones. */
  putBack(samples: MetricSample[]): void {
    this.samples = [...samples, ...this.samples].slice(-this.capacity);
  }
}
