/**
 * A small line chart in SVG: no chart library (nothing to load, nothing inline for the CSP). Values are
 * percentages or any series; null gaps break the line. Labelled for screen readers by its summary.
 */
import { useT } from '../i18n/I18nProvider';
import { formatNumber } from './units';

export interface SparklineProps {
  values: readonly (number | null)[];
  /** Upper bound of the scale (100 for percentages); the series' maximum when absent. */
  max?: number;
  label: string;
  width?: number;
  height?: number;
}

function sparklinePath(
  values: readonly (number | null)[],
  width: number,
  height: number,
  max: number,
): string {
  if (values.length === 0 || max <= 0) return '';
  const only = values.length === 1 ? values[0] : undefined;
  if (only !== undefined && only !== null && Number.isFinite(only)) {
    // One sample: a level line, so the chart says something from the first minute.
    const y = (height - (Math.min(only, max) / max) * height).toFixed(1);
    return `M0 ${y}L${width} ${y}`;
  }
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  let path = '';
  let drawing = false;
  values.forEach((value, index) => {
    if (value === null || !Number.isFinite(value)) {
      drawing = false;
      return;
    }
    const x = (index * step).toFixed(1);
    const y = (height - (Math.min(value, max) / max) * height).toFixed(1);
    path += `${drawing ? 'L' : 'M'}${x} ${y}`;
    drawing = true;
  });
  return path;
}

export function Sparkline({ values, max, label, width = 160, height = 36 }: SparklineProps) {
  const numbers = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const scale = max ?? Math.max(1, ...numbers);
  const { t } = useT();
  const last = numbers.at(-1);
  return (
    <svg
      className="sparkline"
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      role="img"
      aria-label={
        last === undefined
          ? t('common.noSamples', { label })
          : t('common.lastSample', { label, value: formatNumber(last, 1) })
      }
      preserveAspectRatio="none"
    >
      <path d={sparklinePath(values, width, height, scale)} fill="none" vectorEffect="non-scaling-stroke" />
    </svg>
  );
}
