/**
 * A time-series chart on uPlot (canvas: tens of thousands of points stay quick), in the console's colours
 * for the current theme, as wide as its box: a time axis in the zone the reader chose (theirs or the hub's,
 * ../../components/chart-zone.tsx), a value axis with its unit, a band from min to max under each mean line
 * of bucketed data, hatched breaks where the agent was silent, and a tooltip with the exact values and time
 * on hover and on keyboard focus (arrow keys, Home, End). The axes' labels are page text over the canvas
 * (the reader's language and zone, legible to tests and translators); the canvas is labelled for screen
 * readers, and the figures beside it (latest, mean, highest, gaps) say the same in text.
 */
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { zonedTimeText, type ChartZone } from '../../components/chart-zone';
import { formatTimeIn } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { seriesFigures, type Band } from './metrics-series';

export interface ChartLine {
  label: string;
  values: (number | null)[];
  /** A CSS variable of the theme: `--accent`, `--ok`… */
  colorVar: string;
  /** Bucketed data: each point's min and max, drawn as a band around the line. */
  band?: Band;
}

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

/** Axis labels as page text: uPlot places the ticks, the labels sit over the canvas where it would draw them. */
interface AxisTicks {
  x: [number, string][];
  y: [number, string][];
}

function placeLabel(layer: HTMLElement, className: string, text: string, left: number, top: number): void {
  const label = document.createElement('span');
  label.className = className;
  label.textContent = text;
  label.style.left = `${String(left)}px`;
  label.style.top = `${String(top)}px`;
  layer.append(label);
}

/** Redraws the labels, the axis titles and the gaps' hatching after each draw (data, size or zone changed). */
function drawOverlay(
  u: uPlot,
  layer: HTMLElement,
  ticks: AxisTicks,
  titles: { x: string; y: string },
  gaps: { span: [number, number]; title: string }[],
): void {
  const left = u.bbox.left / uPlot.pxRatio;
  const top = u.bbox.top / uPlot.pxRatio;
  const height = u.bbox.height / uPlot.pxRatio;
  layer.replaceChildren();
  for (const [value, text] of ticks.x) {
    placeLabel(layer, 'chart-tick chart-tick-x', text, left + u.valToPos(value, 'x'), top + height + 6);
  }
  for (const [value, text] of ticks.y) {
    placeLabel(layer, 'chart-tick chart-tick-y', text, left - 8, top + u.valToPos(value, 'y'));
  }
  placeLabel(
    layer,
    'chart-axis-title chart-axis-title-x',
    titles.x,
    left + u.bbox.width / uPlot.pxRatio / 2,
    top + height + 24,
  );
  placeLabel(layer, 'chart-axis-title chart-axis-title-y', titles.y, 0, top + height / 2);
  const hatches = gaps.map(({ span: [from, to], title }) => {
    const hatch = document.createElement('div');
    hatch.className = 'chart-gap';
    hatch.title = title;
    const x0 = Math.max(u.valToPos(from, 'x'), 0);
    const x1 = Math.min(u.valToPos(to, 'x'), u.bbox.width / uPlot.pxRatio);
    hatch.style.left = `${String(x0)}px`;
    hatch.style.width = `${String(Math.max(x1 - x0, 2))}px`;
    return hatch;
  });
  u.under.replaceChildren(...hatches);
}

export function TimeChart({
  title,
  times,
  lines,
  max,
  format,
  unit,
  gaps = [],
  zone,
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
  /** The zone times are shown in (one choice for every chart of the page). */
  zone: ChartZone;
}) {
  const { t } = useT();
  const box = useRef<HTMLDivElement>(null);
  const tip = useRef<HTMLDivElement>(null);
  const spoken = useRef<HTMLSpanElement>(null);
  const chartRef = useRef<uPlot | null>(null);
  const theme = useThemeVersion();
  const shownZone = zone.zone;
  const timeText = (seconds: number) => zonedTimeText(t, seconds * 1000, zone);
  const span = (from: number, to: number) =>
    t('chart.gapRange', {
      from: formatTimeIn(from * 1000, shownZone, 'full'),
      to: formatTimeIn(to * 1000, shownZone, 'full'),
    });

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const grid = themeColor('--border');
    const layer = document.createElement('div');
    layer.className = 'chart-axis-labels';
    layer.setAttribute('aria-hidden', 'true');
    const ticks: AxisTicks = { x: [], y: [] };
    const hatches = gaps.map((gap) => ({ span: gap, title: t('chart.gapTitle', { span: span(...gap) }) }));
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
      const rows = lines.map((line) => {
        const value = line.values[idx];
        if (value === null || value === undefined) return t('chart.silent', { label: line.label });
        const lo = line.band?.lo[idx];
        const hi = line.band?.hi[idx];
        return lo !== undefined && lo !== null && hi !== undefined && hi !== null
          ? t('chart.bucketValue', {
              label: line.label,
              mean: format(value),
              min: format(lo),
              max: format(hi),
            })
          : t('chart.value', { label: line.label, value: format(value) });
      });
      element.textContent = '';
      const head = document.createElement('strong');
      head.textContent = timeText(time);
      element.append(head);
      for (const row of rows) {
        const div = document.createElement('div');
        div.textContent = row;
        element.append(div);
      }
      element.hidden = false;
      if (spoken.current && document.activeElement === box.current) {
        spoken.current.textContent = [head.textContent, ...rows].join('; ');
      }
      const left = u.cursor.left ?? 0;
      const width = u.over.clientWidth;
      element.style.left = `${String(Math.min(Math.max(left + 12, 0), Math.max(width - element.offsetWidth, 0)))}px`;
    };
    const daySpan = (times.at(-1) ?? 0) - (times[0] ?? 0) > 36 * 60 * 60;
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
        // Ticks fall on whole hours and days of the zone shown, not of the browser's.
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), shownZone),
        scales: {
          x: { time: true },
          y:
            max === undefined
              ? { range: (_u, _min, top) => [0, top > 0 ? top * 1.1 : 1] }
              : { range: [0, max] },
        },
        axes: [
          {
            // The labels are drawn as page text (drawOverlay); the canvas keeps their room and the grid.
            stroke: 'transparent',
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid, width: 1 },
            size: 30,
            label: ' ',
            labelSize: 20,
            values: (_u, splits) => {
              const labels = splits.map((s) => formatTimeIn(s * 1000, shownZone, daySpan ? 'day' : 'clock'));
              ticks.x = splits.map((s, i) => [s, labels[i] ?? '']);
              return labels;
            },
          },
          {
            stroke: 'transparent',
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid, width: 1 },
            size: 70,
            label: ' ',
            labelSize: 20,
            values: (_u, splits) => {
              const labels = splits.map((v) => format(v));
              ticks.y = splits.map((v, i) => [v, labels[i] ?? '']);
              return labels;
            },
          },
        ],
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
        hooks: {
          setCursor: [showTip],
          draw: [
            (u) => {
              drawOverlay(u, layer, ticks, { x: t('chart.timeAxis', { zone: shownZone }), y: unit }, hatches);
            },
          ],
        },
      },
      [times, ...ys],
      element,
    );
    chart.root.querySelector('.u-wrap')?.append(layer);
    chartRef.current = chart;
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
      chartRef.current = null;
      chart.destroy();
    };
    // timeText and span read the zone and t, both listed.
  }, [times, lines, max, format, unit, theme, gaps, shownZone, zone.hubZone, t]);

  /** Keyboard: focus shows the newest point; arrows step, Home and End jump; Escape hides the tooltip. */
  const pointAt = (index: number) => {
    const chart = chartRef.current;
    const time = times[index];
    if (!chart || time === undefined) return;
    chart.setCursor({ left: chart.valToPos(time, 'x'), top: chart.over.clientHeight / 2 });
  };
  const current = () => chartRef.current?.cursor.idx ?? times.length - 1;
  const onKeyDown = (event: KeyboardEvent) => {
    const last = times.length - 1;
    const moves: Record<string, number> = {
      ArrowLeft: Math.max(current() - 1, 0),
      ArrowRight: Math.min(current() + 1, last),
      PageUp: Math.max(current() - 10, 0),
      PageDown: Math.min(current() + 10, last),
      Home: 0,
      End: last,
    };
    const next = moves[event.key];
    if (next !== undefined) {
      event.preventDefault();
      pointAt(next);
    } else if (event.key === 'Escape' && tip.current) {
      tip.current.hidden = true;
    }
  };

  const summary = lines
    .map((line) => {
      const f = seriesFigures(line.values);
      return f.latest === null
        ? t('common.noSamples', { label: line.label })
        : t('chart.figures', {
            label: line.label,
            latest: format(f.latest),
            mean: format(f.mean ?? 0),
            max: format(f.max ?? 0),
          });
    })
    .join('; ');
  const silent =
    gaps.length === 0
      ? ''
      : ` ${t('chart.gaps', {
          n: gaps.length,
          list: `${gaps
            .slice(0, 3)
            .map(([from, to]) => span(from, to))
            .join(', ')}${gaps.length > 3 ? '…' : ''}`,
        })}`;
  const described = `${summary}.${silent}`;

  return (
    <figure className="chart panel">
      <figcaption>
        <h3>{title}</h3>
        <p className="muted small chart-figures">{described}</p>
        <p className="muted small chart-axes">{t('chart.axes', { unit, zone: shownZone })}</p>
      </figcaption>
      <div className="chart-box">
        <div
          className="chart-canvas"
          ref={box}
          role="img"
          tabIndex={0}
          aria-label={`${title}: ${described}`}
          onFocus={() => {
            pointAt(current());
          }}
          onBlur={() => {
            if (tip.current) tip.current.hidden = true;
          }}
          onKeyDown={onKeyDown}
        />
        <div className="chart-tooltip" ref={tip} hidden aria-hidden="true" />
        <span className="visually-hidden" ref={spoken} aria-live="polite" />
      </div>
    </figure>
  );
}
