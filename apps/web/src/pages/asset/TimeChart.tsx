/**
 * A time-series chart on uPlot (canvas: tens of thousands of points stay quick), in the console's colours
 * for the current theme, as wide as its box. The canvas is labelled for screen readers, and the figures
 * beside it (latest, mean, highest) say the same in text.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { seriesFigures } from './metrics-series';

export interface ChartLine {
  label: string;
  values: (number | null)[];
  /** A CSS variable of the theme: `--accent`, `--ok`… */
  colorVar: string;
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
}: {
  title: string;
  /** Seconds since the epoch. */
  times: number[];
  lines: ChartLine[];
  /** Fixed top of the scale (100 for percentages); automatic when absent. */
  max?: number;
  format: (value: number) => string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const theme = useThemeVersion();

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const text = themeColor('--muted');
    const grid = themeColor('--border');
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 200),
        height: chartHeight,
        series: [
          {},
          ...lines.map((line) => ({
            label: line.label,
            stroke: themeColor(line.colorVar),
            width: 1.5,
            value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
          })),
        ],
        scales: {
          x: { time: true },
          y:
            max === undefined
              ? { range: (_u, _min, top) => [0, top > 0 ? top * 1.1 : 1] }
              : { range: [0, max] },
        },
        axes: [
          { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } },
          {
            stroke: text,
            grid: { stroke: grid, width: 1 },
            ticks: { stroke: grid, width: 1 },
            size: 70,
            values: (_u, values) => values.map((v) => format(v)),
          },
        ],
        legend: { live: true },
        cursor: { drag: { x: false, y: false } },
      },
      [times, ...lines.map((line) => line.values)],
      element,
    );
    const resize = new ResizeObserver(() => {
      chart.setSize({ width: Math.max(element.clientWidth, 200), height: chartHeight });
    });
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [times, lines, max, format, theme]);

  const summary = lines
    .map((line) => {
      const f = seriesFigures(line.values);
      return f.latest === null
        ? `${line.label}: no samples`
        : `${line.label}: latest ${format(f.latest)}, mean ${format(f.mean ?? 0)}, highest ${format(f.max ?? 0)}`;
    })
    .join('; ');

  return (
    <figure className="chart panel">
      <figcaption>
        <h3>{title}</h3>
        <p className="muted small chart-figures">{summary}</p>
      </figcaption>
      <div className="chart-canvas" ref={box} role="img" aria-label={`${title}: ${summary}`} />
    </figure>
  );
}
