import type { MetricSample } from '@svc/protocol';

/** A metric sample at `ms` (epoch milliseconds) whose values do not matter to the test. */
export function metricSample(ms: number): MetricSample {
  return {
    ts: new Date(ms).toISOString(),
    cpu_percent: 1,
    memory_used_bytes: 1,
    memory_total_bytes: 2,
    disk_used_bytes: 1,
    disk_total_bytes: 2,
    load1: 0,
    net_rx_bytes: 0,
    net_tx_bytes: 0,
  };
}
