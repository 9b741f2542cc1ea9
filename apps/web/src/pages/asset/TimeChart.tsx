/**
 * A time-series chart on uPlot (canvas: tens of thousands of points stay quick), in the console's colours
 * for the current theme, as wide as its box: a time axis in the viewer's zone, a value axis with its unit,
 * a band from min to max under each mean line of bucketed data, breaks where the agent was silent, and a
 * tooltip with the exact values and time (the viewer's zone and UTC, the hub's clock). The canvas is labelled
 * for screen readers, and the figures beside it (latest, mean, highest, gaps) say the same in text.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { seriesFigures, type Band } from './metrics-series';

export interface ChartLine {
  label: string;
  values: (number | null)[];
  /** A CSS variable of the theme: `--accent`, `--ok`… */
  colorVar: string;
  /** Bucketed data: each point's min and max, drawn as a band around the line. */
  band?: Band;
}

const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
const localTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const utcTime = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium', timeZone: 'UTC' });
const shortTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });

/** A theme colour (`#rgb`, `#rrggbb` or `rgb(…)`) a quarter opaque, for the band around its line. */
function translucent(color: string): string {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color)?.[1];
  if (hex) {
    const full = hex.length === 3 ? hex.replace(/./g, (c) => c + c) : hex;
    const [r, g, b] = [0, 2, 4].map((i) => parseInt(full.slice(i, i + 2), 16));
    return `rgba(${String(r)}, ${String(g)}, ${String(b)}, 0.25)`;
  }
  const rgb = /^rgba?\((\d+)[ ,]+(\d+)[ ,]+(\d+)/.exec(color);
  return rgb
    ? `rgba(${rgb[1] ?? '0'}, ${rgb[2] ?? '0'}, ${rgb[3] ?? '0'}, 0.25)`
    : 'rgba(128, 128, 128, 0.25)';
}

const chartHeight = 180;

function themeColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

/** Bumps when the theme changes (the toggle sets data-theme; the system setting can change too). */
function useThemeVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => {
      setVersion((v) => v + 1);
    };
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    media.addEventListener('change', bump);
    return () => {
      observer.disconnect();
      media.removeEventListener('change', bump);
    };
  }, []);
  return version;
}

export function TimeChart({
  title,
  times,
  lines,
  max,
  format,
  unit,
  gaps = [],
}: {
  title: string;
  /** Seconds since the epoch. */
  times: number[];
  lines: ChartLine[];
  /** Fixed top of the scale (100 for percentages); automatic when absent. */
  max?: number;
  format: (value: number) => string;
  /** The value axis' unit, written beside it: `%`, `bytes/s`, `load`. */
  unit: string;
  /** Where the agent was silent, [start, end] in seconds since the epoch. */
  gaps?: [number, number][];
}) {
  const box = useRef<HTMLDivElement>(null);
  const tip = useRef<HTMLDivElement>(null);
  const theme = useThemeVersion();

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const text = themeColor('--muted');
    const grid = themeColor('--border');
    // Series: x, then per line its mean, then (bucketed) its band's min and max.
    const series: uPlot.Series[] = [{}];
    const ys: (number | null)[][] = [];
    const bands: uPlot.Band[] = [];
    for (const line of lines) {
      const color = themeColor(line.colorVar);
      series.push({ label: line.label, stroke: color, width: 1.5 });
      ys.push(line.values);
      if (line.band) {
        const lo = series.length;
        const edge = { stroke: 'transparent', width: 0, points: { show: false }, class: 'chart-band-edge' };
        series.push({ ...edge, label: `${line.label} min` }, { ...edge, label: `${line.label} max` });
        ys.push(line.band.lo, line.band.hi);
        bands.push({ series: [lo + 1, lo], fill: translucent(color) });
      }
    }
    const showTip = (u: uPlot) => {
      const element = tip.current;
      const idx = u.cursor.idx;
      const time = idx === null || idx === undefined ? undefined : times[idx];
      if (!element || idx === null || idx === undefined || time === undefined) {
        if (element) element.hidden = true;
        return;
      }
      const when = new Date(time * 1000);
      const rows = lines.map((line) => {
        const value = line.values[idx];
        if (value === null || value === undefined) return `${line.label}: no samples`;
        const lo = line.band?.lo[idx];
        const hi = line.band?.hi[idx];
        return lo !== undefined && lo !== null && hi !== undefined && hi !== null
          ? `${line.label}: mean ${format(value)} (min ${format(lo)}, max ${format(hi)})`
          : `${line.label}: ${format(value)}`;
      });
      element.textContent = '';
      const head = document.createElement('strong');
      // The hub keeps and answers time in UTC: shown beside the viewer's zone when they differ.
      head.textContent =
        viewerZone === 'UTC'
          ? `${localTime.format(when)} UTC`
          : `${localTime.format(when)} (${viewerZone}) · hub ${utcTime.format(when)} UTC`;
      element.append(head);
      for (const row of rows) {
        const div = document.createElement('div');
        div.textContent = row;
        element.append(div);
      }
      element.hidden = false;
      const left = u.cursor.left ?? 0;
      const width = u.over.clientWidth;
      element.style.left = `${Math.min(Math.max(left + 12, 0), Math.max(width - element.offsetWidth, 0))}px`;
    };
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height: chartHeight,
        series: series.map((entry, i) =>
          i === 0
            ? entry
            : { ...entry, value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)) },
        ),
        bands,
        scales: {
          x: { time: true },
          y:
            max === undefined
              ? { range: (_u, _min, top) => [0, top > 0 ? top * 1.1 : 1] }
              : { range: [0, max] },
        },
        axes: [
          {
            stroke: text,
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid, width: 1 },
            label: `Time (${viewerZone})`,
            labelSize: 20,
          },
          {
            stroke: text,
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid, width: 1 },
            size: 70,
            label: unit,
            labelSize: 20,
            values: (_u, values) => values.map((v) => format(v)),
          },
        ],
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
        hooks: { setCursor: [showTip] },
      },
      [times, ...ys],
      element,
    );
    const leave = () => {
      if (tip.current) tip.current.hidden = true;
    };
    chart.over.addEventListener('mouseleave', leave);
    const resize = new ResizeObserver(() => {
      chart.setSize({ width: Math.max(element.clientWidth, 200), height: chartHeight });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.over.removeEventListener('mouseleave', leave);
      chart.destroy();
    };
  }, [times, lines, max, format, unit, theme]);

  const summary = lines
    .map((line) => {
      const f = seriesFigures(line.values);
      return f.latest === null
        ? `${line.label}: no samples`
        : `${line.label}: latest ${format(f.latest)}, mean ${format(f.mean ?? 0)}, highest ${format(f.max ?? 0)}`;
    })
    .join('; ');
  const silent =
    gaps.length === 0
      ? ''
      : ` ${gaps.length === 1 ? 'One gap' : `${gaps.length} gaps`} where the agent was silent: ${gaps
          .slice(0, 3)
          .map(
            ([from, to]) =>
              `${shortTime.format(new Date(from * 1000))} to ${shortTime.format(new Date(to * 1000))}`,
          )
          .join(', ')}${gaps.length > 3 ? '…' : ''}.`;
  const described = `${summary}.${silent}`;

  return (
    <figure className="chart panel">
      <figcaption>
        <h3>{title}</h3>
        <p className="muted small chart-figures">{described}</p>
        <p className="muted small chart-axes">
          Values in {unit}, time in {viewerZone}; point at the chart for exact values.
        </p>
      </figcaption>
      <div className="chart-box">
        <div className="chart-canvas" ref={box} role="img" aria-label={`${title}: ${described}`} />
        <div className="chart-tooltip" ref={tip} hidden aria-hidden="true" />
      </div>
    </figure>
  );
}
