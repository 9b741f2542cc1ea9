/** The asset page's metrics tab (pages/asset/tabs/MetricsTab.tsx): its range, counts and chart names. */
export const metrics = {
  'metrics.range': 'Time range',
  'metrics.rangeName': '{range, select, 1h {1 hour} 6h {6 hours} 24h {24 hours} 7d {7 days} other {30 days}}',
  'metrics.fetching': 'Loading…',
  'metrics.samples': '{count, plural, one {# sample} other {# samples}}',
  'metrics.samplesLive': '{count, plural, one {# sample} other {# samples}}, refreshed every 30 s',
  'metrics.samplesBucketed':
    '{count, plural, one {# sample} other {# samples}} in {buckets, plural, one {# bucket} other {# buckets}} (min, max and mean)',
  'metrics.loading': 'Loading the metrics',
  'metrics.truncated':
    'This range holds more samples than the console fetches at once: the chart ends before now. Choose a shorter range for the latest.',
  'metrics.none': 'No samples in the last {range}',
  'metrics.agentSends': 'The agent sends samples while it is connected.',
  'metrics.noAgent': 'Metrics come from an agent; this device has none.',
  'metrics.chart': '{chart, select, cpu {CPU} memory {Memory} disk {Disk} load {Load} other {Network}}',
  'metrics.line':
    '{line, select, cpu {CPU} memory {Memory used} disk {Disk used} load {Load (1 min)} rx {Received} other {Sent}}',
  'metrics.unit': '{unit, select, percent {%} used {% used} load {load (1 min)} other {bytes/s}}',
};
