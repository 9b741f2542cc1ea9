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
import { useT } from '../../../i18n/I18nProvider';
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
  const { t } = useT();
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
    const line = (key: SeriesKey, colorVar: string): ChartLine => {
      const band = series.bands?.[key];
      const label = t('metrics.line', { line: key });
      return { label, values: series[key], colorVar, ...(band ? { band } : {}) };
    };
    return {
      cpu: [line('cpu', '--accent')],
      memory: [line('memory', '--accent')],
      disk: [line('disk', '--accent')],
      load: [line('load', '--accent')],
      network: [line('rx', '--ok'), line('tx', '--warn')],
    };
  }, [series, t]);
  const countText = (data: { count: number; buckets: number | null }) =>
    data.buckets !== null
      ? t('metrics.samplesBucketed', { count: data.count, buckets: data.buckets })
      : t(live ? 'metrics.samplesLive' : 'metrics.samples', { count: data.count });

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
        <div className="segmented" role="group" aria-label={t('metrics.range')}>
          {metricRanges.map((r) => (
            <button
              key={r.key}
              type="button"
              aria-pressed={r.key === range.key}
              onClick={() => {
                choose(r.key);
              }}
            >
              {t('metrics.rangeName', { range: r.key })}
            </button>
          ))}
        </div>
        <ChartZoneSwitch zone={zone} />
        <span className="muted small" aria-live="polite">
          {history.isFetching ? t('metrics.fetching') : history.data ? countText(history.data) : ''}
        </span>
      </div>
      {history.isPending && <Loading label={t('metrics.loading')} />}
      {history.isError && <ErrorNotice error={history.error} retry={() => void history.refetch()} />}
      {history.data?.truncated && <p className="muted small">{t('metrics.truncated')}</p>}
      {history.isSuccess && history.data.count === 0 && (
        <EmptyState title={t('metrics.none', { range: t('metrics.rangeName', { range: range.key }) })}>
          <p>{t(asset.agent ? 'metrics.agentSends' : 'metrics.noAgent')}</p>
        </EmptyState>
      )}
      {history.data && history.data.count > 0 && (
        <div className="charts">
          <TimeChart
            title={t('metrics.chart', { chart: 'cpu' })}
            times={series.times}
            lines={charts.cpu}
            max={100}
            format={formatPercent}
            unit={t('metrics.unit', { unit: 'percent' })}
            gaps={series.gaps}
            zone={zone}
          />
          <TimeChart
            title={t('metrics.chart', { chart: 'memory' })}
            times={series.times}
            lines={charts.memory}
            max={100}
            format={formatPercent}
            unit={t('metrics.unit', { unit: 'used' })}
            gaps={series.gaps}
            zone={zone}
          />
          <TimeChart
            title={t('metrics.chart', { chart: 'disk' })}
            times={series.times}
            lines={charts.disk}
            max={100}
            format={formatPercent}
            unit={t('metrics.unit', { unit: 'used' })}
            gaps={series.gaps}
            zone={zone}
          />
          <TimeChart
            title={t('metrics.chart', { chart: 'load' })}
            times={series.times}
            lines={charts.load}
            format={formatLoad}
            unit={t('metrics.unit', { unit: 'load' })}
            gaps={series.gaps}
            zone={zone}
          />
          <TimeChart
            title={t('metrics.chart', { chart: 'network' })}
            times={series.times}
            lines={charts.network}
            format={formatRate}
            unit={t('metrics.unit', { unit: 'rate' })}
            gaps={series.gaps}
            zone={zone}
          />
        </div>
      )}
    </div>
  );
}
