/**
 * The asset's stored metrics over a chosen range: CPU, memory, disk, load and network. Read from the hub's
 * store, so it works while the asset is offline; the shorter ranges refresh every 30 s.
 */
import { useMemo } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import { hub } from '../../../api/client';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { Loading } from '../../../components/Loading';
import { formatBytes, formatPercent } from '../../../components/units';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';
import { chartSeries, fetchSamples, metricRanges, type MetricRangeKey } from '../metrics-series';
import { TimeChart, type ChartLine } from '../TimeChart';

const formatRate = (bytesPerSecond: number) => `${formatBytes(bytesPerSecond)}/s`;
const formatLoad = (value: number) => value.toFixed(2);

function rangeOf(key: string | null) {
  return metricRanges.find((r) => r.key === key) ?? metricRanges[0];
}

export function MetricsTab({ asset }: AssetTabProps) {
  const [params, setParams] = useSearchParams();
  const range = rangeOf(params.get('range'));
  const live = range.ms <= 6 * 60 * 60 * 1000;
  const history = useQuery({
    queryKey: assetPartKey(asset.id, 'metrics', range.key),
    queryFn: async () => {
      const to = new Date();
      return fetchSamples(
        async (query) =>
          (await hub.call('metrics.history', { params: { id: asset.id }, query })).data.samples,
        new Date(to.getTime() - range.ms),
        to,
      );
    },
    placeholderData: keepPreviousData,
    refetchInterval: live ? 30_000 : false,
  });
  const series = useMemo(() => chartSeries(history.data?.samples ?? []), [history.data]);
  const charts = useMemo(() => {
    const line = (label: string, values: (number | null)[], colorVar: string): ChartLine => ({
      label,
      values,
      colorVar,
    });
    return {
      cpu: [line('CPU', series.cpu, '--accent')],
      memory: [line('Memory used', series.memory, '--accent')],
      disk: [line('Disk used', series.disk, '--accent')],
      load: [line('Load (1 min)', series.load, '--accent')],
      network: [line('Received', series.rx, '--ok'), line('Sent', series.tx, '--warn')],
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
        <span className="muted small" aria-live="polite">
          {history.isFetching
            ? 'Loading…'
            : history.data
              ? `${history.data.samples.length} samples${live ? ', refreshed every 30 s' : ''}`
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
      {history.isSuccess && history.data.samples.length === 0 && (
        <EmptyState title={`No samples in the last ${range.label}`}>
          <p>
            {asset.agent
              ? 'The agent sends samples while it is connected.'
              : 'Metrics come from an agent; this device has none.'}
          </p>
        </EmptyState>
      )}
      {history.data && history.data.samples.length > 0 && (
        <div className="charts">
          <TimeChart title="CPU" times={series.times} lines={charts.cpu} max={100} format={formatPercent} />
          <TimeChart
            title="Memory"
            times={series.times}
            lines={charts.memory}
            max={100}
            format={formatPercent}
          />
          <TimeChart title="Disk" times={series.times} lines={charts.disk} max={100} format={formatPercent} />
          <TimeChart title="Load" times={series.times} lines={charts.load} format={formatLoad} />
          <TimeChart title="Network" times={series.times} lines={charts.network} format={formatRate} />
        </div>
      )}
    </div>
  );
}
