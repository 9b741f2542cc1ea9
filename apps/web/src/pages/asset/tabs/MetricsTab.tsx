/**
 * The asset's stored metrics over a chosen range: CPU, memory, disk, load and network. Read from the hub's
 * store, so it works while the asset is offline; the shorter ranges refresh every 30 s. Up to 6 hours the
 * raw samples; beyond, the hub's buckets (min, max and mean per step), so 7 and 30 days load as fast.
 */
import { useMemo } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { hub } from '../../../api/client';
import { ChartZoneSwitch, useChartZone } from '../../../components/chart-zone';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Loading } from '../../../components/Loading';
import { formatBytes, formatPercent } from '../../../components/units';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';
import {
  bucketSeries,
  chartBuckets,
  chartSeries,
  fetchSamples,
  metricRanges,
  rawRangeMs,
  type MetricRangeKey,
  type SeriesKey,
} from '../metrics-series';
import { TimeChart, type ChartLine } from '../TimeChart';

const formatRate = (bytesPerSecond: number) => `${formatBytes(bytesPerSecond)}/s`;
const formatLoad = (value: number) => value.toFixed(2);

function rangeOf(key: string | null) {
  return metricRanges.find((r) => r.key === key) ?? metricRanges[0];
}

export function MetricsTab({ asset }: AssetTabProps) {
  const [params, setParams] = useSearchParams();
  const range = rangeOf(params.get('range'));
  const zone = useChartZone();
  const live = range.ms <= 6 * 60 * 60 * 1000;
  const history = useQuery({
    queryKey: assetPartKey(asset.id, 'metrics', range.key),
    queryFn: async () => {
      const to = new Date();
      if (range.ms > rawRangeMs) {
        const from = new Date(to.getTime() - range.ms);
        const { data } = await hub.call('metrics.history', {
          params: { id: asset.id },
          query: { from: from.toISOString(), to: to.toISOString(), buckets: chartBuckets },
        });
        const buckets = data.buckets ?? [];
        return {
          samples: [],
          truncated: false,
          count: buckets.reduce((sum, b) => sum + b.n, 0),
          buckets: buckets.length,
          series: bucketSeries(buckets, data.step_s ?? 1),
        };
      }
      const fetched = await fetchSamples(
        async (query) =>
          (await hub.call('metrics.history', { params: { id: asset.id }, query })).data.samples,
        new Date(to.getTime() - range.ms),
        to,
      );
      return {
        ...fetched,
        count: fetched.samples.length,
        buckets: null,
        series: chartSeries(fetched.samples),
      };
    },
    placeholderData: keepPreviousData,
    refetchInterval: live ? 30_000 : false,
  });
  const series = useMemo(() => history.data?.series ?? chartSeries([]), [history.data]);
  const charts = useMemo(() => {
    const line = (label: string, key: SeriesKey, colorVar: string): ChartLine => {
      const band = series.bands?.[key];
      return { label, values: series[key], colorVar, ...(band ? { band } : {}) };
    };
    return {
      cpu: [line('CPU', 'cpu', '--accent')],
      memory: [line('Memory used', 'memory', '--accent')],
      disk: [line('Disk used', 'disk', '--accent')],
      load: [line('Load (1 min)', 'load', '--accent')],
      network: [line('Received', 'rx', '--ok'), line('Sent', 'tx', '--warn')],
    };
  }, [series]);

  const choose = (key: MetricRangeKey) => {
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        next.set('range', key);
        return next;
      },
      { replace: true },
    );
  };

  return (
    <div className="metrics">
      <div className="section-toolbar">
        <div className="segmented" role="group" aria-label="Time range">
          {metricRanges.map((r) => (
            <button
              key={r.key}
              type="button"
              aria-pressed={r.key === range.key}
              onClick={() => {
                choose(r.key);
              }}
            >
              {r.label}
            </button>
          ))}
        </div>
        <ChartZoneSwitch zone={zone} />
        <span className="muted small" aria-live="polite">
          {history.isFetching
            ? 'Loading…'
            : history.data
              ? `${history.data.count} samples${history.data.buckets === null ? '' : ` in ${history.data.buckets} buckets (min, max and mean)`}${live ? ', refreshed every 30 s' : ''}`
              : ''}
        </span>
      </div>
      {history.isPending && <Loading label="Loading the metrics" />}
      {history.isError && <ErrorNotice error={history.error} retry={() => void history.refetch()} />}
      {history.data?.truncated && (
        <p className="muted small">
          This range holds more samples than the console fetches at once: the chart ends before now. Choose a
          shorter range for the latest.
        </p>
      )}
      {history.isSuccess && history.data.count === 0 && (
        <EmptyState title={`No samples in the last ${range.label}`}>
          <p>
            {asset.agent
              ? 'The agent sends samples while it is connected.'
              : 'Metrics come from an agent; this device has none.'}
          </p>
        </EmptyState>
      )}
      {history.data && history.data.count > 0 && (
        <div className="charts">
          <TimeChart
            title="CPU"
            times={series.times}
            lines={charts.cpu}
            max={100}
            format={formatPercent}
            unit="%"
            gaps={series.gaps}
            zone={zone}
          />
          <TimeChart
            title="Memory"
            times={series.times}
            lines={charts.memory}
            max={100}
            format={formatPercent}
            unit="% used"
            gaps={series.gaps}
            zone={zone}
          />
          <TimeChart
            title="Disk"
            times={series.times}
            lines={charts.disk}
            max={100}
            format={formatPercent}
            unit="% used"
            gaps={series.gaps}
            zone={zone}
          />
          <TimeChart
            title="Load"
            times={series.times}
            lines={charts.load}
            format={formatLoad}
            unit="load (1 min)"
            gaps={series.gaps}
            zone={zone}
          />
          <TimeChart
            title="Network"
            times={series.times}
            lines={charts.network}
            format={formatRate}
            unit="bytes/s"
            gaps={series.gaps}
            zone={zone}
          />
        </div>
      )}
    </div>
  );
}
