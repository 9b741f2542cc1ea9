/**
 * A small time chart for tables and the phone (the dashboard's busiest assets, an asset on the phone): the
 * asset page's chart at a cell's size, in SVG with no chart library (nothing to load, nothing inline for the
 * CSP). A value axis (its top and zero, with the unit), a time axis (the span's start and end in the zone
 * chosen, ./chart-zone.tsx), hatched gaps where the agent was silent, and a tooltip with the exact value,
 * unit and time on hover and on keyboard focus (arrow keys, Home, End). Labelled for screen readers by its
 * latest value; the keyboard's tooltip is also read out.
 */
import { useState, type KeyboardEvent, type PointerEvent } from 'react';
import { useT } from '../i18n/I18nProvider';
import { zonedTimeText, type ChartZone } from './chart-zone';
import { formatNumber, formatTimeIn } from './units';

const width = 160;
const height = 36;

export interface MiniChartProps {
  /** Seconds since the epoch, oldest first. */
  times: readonly number[];
  values: readonly (number | null)[];
  /** The span drawn, in seconds since the epoch (the last hour): silent stretches inside it are gaps. */
  from: number;
  to: number;
  /** Top of the scale (100 for percentages); the series' maximum when absent. */
  max?: number;
  /** The exact value with its unit, for the tooltip. */
  format: (value: number) => string;
  /** The value axis' unit: `%`. */
  unit: string;
  label: string;
  zone: ChartZone;
  /**
   * The span's start and end under the chart (default). A table of charts over the same span says it once
   * instead (the dashboard's footer): a cell has no room for two times.
   */
  timeAxis?: boolean;
}

/** Where no sample came for more than five usual intervals: [start, end] in seconds, inside the span. */
export function silentSpans(times: readonly number[], from: number, to: number): [number, number][] {
  if (times.length < 2) return [];
  const steps = times
    .slice(1)
    .map((t, i) => t - (times[i] ?? t))
    .sort((a, b) => a - b);
  const limit = (steps[Math.floor(steps.length / 2)] ?? 0) * 5;
  if (limit <= 0) return [];
  const edges = [from, ...times, to];
  const spans: [number, number][] = [];
  for (let i = 1; i < edges.length; i += 1) {
    const start = Math.max(edges[i - 1] ?? from, from);
    const end = Math.min(edges[i] ?? to, to);
    if (end - start > limit) spans.push([start, end]);
  }
  return spans;
}

export function MiniChart({
  times,
  values,
  from,
  to,
  max,
  format,
  unit,
  label,
  zone,
  timeAxis = true,
}: MiniChartProps) {
  const { t } = useT();
  const [pointed, setPointed] = useState<{ index: number } | { gap: [number, number] } | null>(null);
  const [keyboard, setKeyboard] = useState(false);
  const numbers = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const top = max ?? Math.max(1, ...numbers);
  const span = Math.max(to - from, 1);
  const x = (time: number) => ((time - from) / span) * width;
  const y = (value: number) => height - (Math.min(Math.max(value, 0), top) / top) * height;
  const gaps = silentSpans(times, from, to);
  const inGap = (time: number) => gaps.find(([start, end]) => time > start && time < end);

  let path = '';
  let previous: number | undefined;
  values.forEach((value, i) => {
    const time = times[i];
    if (time === undefined || value === null || !Number.isFinite(value)) {
      previous = undefined;
      return;
    }
    const broken = previous === undefined || inGap((previous + time) / 2) !== undefined;
    path += `${broken ? 'M' : 'L'}${x(time).toFixed(1)} ${y(value).toFixed(1)}`;
    previous = time;
  });
  const only = numbers.length === 1 ? numbers[0] : undefined;
  // One sample: a level line across the span, so the chart says something from the first minute.
  if (only !== undefined) path = `M0 ${y(only).toFixed(1)}L${String(width)} ${y(only).toFixed(1)}`;

  const points = values.flatMap((value, index) => (value === null ? [] : [index]));
  const nearest = (time: number) =>
    points.reduce<number | undefined>((best, index) => {
      if (best === undefined) return index;
      const distance = Math.abs((times[index] ?? 0) - time);
      return distance < Math.abs((times[best] ?? 0) - time) ? index : best;
    }, undefined);
  const onPointerMove = (event: PointerEvent<SVGSVGElement>) => {
    const box = event.currentTarget.getBoundingClientRect();
    const time = from + ((event.clientX - box.left) / Math.max(box.width, 1)) * span;
    const gap = inGap(time);
    const index = nearest(time);
    setKeyboard(false);
    setPointed(gap ? { gap } : index === undefined ? null : { index });
  };
  const onKeyDown = (event: KeyboardEvent<SVGSVGElement>) => {
    const at = pointed && 'index' in pointed ? points.indexOf(pointed.index) : points.length - 1;
    const moves: Record<string, number> = {
      ArrowLeft: Math.max(at - 1, 0),
      ArrowRight: Math.min(at + 1, points.length - 1),
      Home: 0,
      End: points.length - 1,
    };
    const next = points[moves[event.key] ?? -1];
    if (next !== undefined) {
      event.preventDefault();
      setKeyboard(true);
      setPointed({ index: next });
    } else if (event.key === 'Escape') {
      setPointed(null);
    }
  };

  let tip: { time: string; text: string } | null = null;
  let cursor: number | null = null;
  if (pointed && 'gap' in pointed) {
    const [start, end] = pointed.gap;
    tip = {
      time: zonedTimeText(t, ((start + end) / 2) * 1000, zone),
      text: t('chart.gapTitle', {
        span: t('chart.gapRange', {
          from: formatTimeIn(start * 1000, zone.zone, 'clock'),
          to: formatTimeIn(end * 1000, zone.zone, 'clock'),
        }),
      }),
    };
  } else if (pointed) {
    const time = times[pointed.index];
    const value = values[pointed.index];
    if (time !== undefined && value !== null && value !== undefined) {
      tip = {
        time: zonedTimeText(t, time * 1000, zone),
        text: t('chart.value', { label, value: format(value) }),
      };
      cursor = x(time);
    }
  }
  const last = numbers.at(-1);

  return (
    <div className="mini-chart">
      <span className="mini-chart-y" aria-hidden="true">
        <span>{`${formatNumber(top)} ${unit}`}</span>
        <span>{`${formatNumber(0)} ${unit}`}</span>
      </span>
      <div className="mini-chart-plot">
        <svg
          viewBox={`0 0 ${String(width)} ${String(height)}`}
          preserveAspectRatio="none"
          role="img"
          tabIndex={0}
          aria-label={
            last === undefined
              ? t('common.noSamples', { label })
              : t('common.lastSample', { label, value: format(last) })
          }
          onPointerMove={onPointerMove}
          onPointerLeave={() => {
            setPointed(null);
          }}
          onFocus={() => {
            const newest = points.at(-1);
            setKeyboard(true);
            setPointed(newest === undefined ? null : { index: newest });
          }}
          onBlur={() => {
            setPointed(null);
          }}
          onKeyDown={onKeyDown}
        >
          {gaps.map(([start, end]) => (
            <rect
              key={start}
              className="mini-chart-gap"
              data-testid="chart-gap"
              x={x(start)}
              y={0}
              width={Math.max(x(end) - x(start), 1)}
              height={height}
            />
          ))}
          <path d={path} className="mini-chart-line" vectorEffect="non-scaling-stroke" />
          {cursor !== null && (
            <line
              className="mini-chart-cursor"
              x1={cursor}
              x2={cursor}
              y1={0}
              y2={height}
              vectorEffect="non-scaling-stroke"
            />
          )}
        </svg>
        {tip && (
          <div className="chart-tooltip mini-chart-tip" role="tooltip">
            <strong>{tip.time}</strong>
            <div>{tip.text}</div>
          </div>
        )}
        <span className="visually-hidden" aria-live="polite">
          {keyboard && tip ? `${tip.time}; ${tip.text}` : ''}
        </span>
      </div>
      {timeAxis && (
        <span className="mini-chart-x" aria-hidden="true">
          <time dateTime={new Date(from * 1000).toISOString()}>
            {formatTimeIn(from * 1000, zone.zone, 'clock')}
          </time>
          <time dateTime={new Date(to * 1000).toISOString()}>
            {formatTimeIn(to * 1000, zone.zone, 'clock')}
          </time>
        </span>
      )}
    </div>
  );
}
