/**
 * The assets list's own controls (decision 0096): density, the columns shown, and the handle on each
 * header's edge that sets a column's width by pointer or keyboard. What they choose is kept in this browser
 * (list-view.ts).
 */
import { useRef, type KeyboardEvent, type PointerEvent } from 'react';
import { useT } from '../../i18n/I18nProvider';
import {
  clampWidth,
  columnWidths,
  densities,
  listColumns,
  type HideableColumn,
  type ListColumn,
  type ListView,
} from './list-view';

export function ListViewControls({ view, onChange }: { view: ListView; onChange: (view: ListView) => void }) {
  const { t } = useT();
  const toggle = (column: HideableColumn, shown: boolean) => {
    const hidden = view.hidden.filter((c) => c !== column);
    onChange({ ...view, hidden: shown ? hidden : [...hidden, column] });
  };
  return (
    <div className="list-view-controls">
      <fieldset className="segmented">
        <legend>{t('assets.density')}</legend>
        {densities.map((density) => (
          <label key={density}>
            <input
              type="radio"
              name="assets-density"
              value={density}
              checked={view.density === density}
              onChange={() => {
                onChange({ ...view, density });
              }}
            />
            {t('assets.densityOption', { density })}
          </label>
        ))}
      </fieldset>
      <details className="columns-menu">
        <summary>{t('assets.columns')}</summary>
        <div className="columns-menu-panel">
          <fieldset>
            <legend>{t('assets.shownColumns')}</legend>
            {listColumns.map((column) => (
              <label key={column}>
                <input
                  type="checkbox"
                  name={`column-${column}`}
                  checked={column === 'name' || !view.hidden.includes(column)}
                  disabled={column === 'name'}
                  onChange={(event) => {
                    if (column !== 'name') toggle(column, event.target.checked);
                  }}
                />
                {t('assets.column', { column })}
              </label>
            ))}
          </fieldset>
          <button
            type="button"
            className="small"
            disabled={Object.keys(view.widths).length === 0}
            onClick={() => {
              onChange({ ...view, widths: {} });
            }}
          >
            {t('assets.resetWidths')}
          </button>
        </div>
      </details>
    </div>
  );
}

/** Keyboard steps of a column's width, in pixels (Shift: the larger one). */
const step = 10;
const bigStep = 40;

/**
 * A column header's right edge: drag it, or focus it and press the arrows (Home: its least width). A focusable
 * separator is the WAI-ARIA pattern for a splitter: it tells its value and range to a screen reader.
 */
export function ColumnResizeHandle({
  column,
  label,
  width,
  onResize,
}: {
  column: ListColumn;
  label: string;
  width: number | undefined;
  onResize: (column: ListColumn, width: number) => void;
}) {
  const { t } = useT();
  const drag = useRef<{ x: number; width: number } | null>(null);
  const { initial, min, max } = columnWidths[column];
  /** The header's width as drawn: where a drag or a key press starts from (the name's may exceed its least). */
  const drawnWidth = (element: HTMLElement) =>
    element.parentElement?.getBoundingClientRect().width ?? width ?? initial;
  return (
    <span
      role="separator"
      aria-orientation="vertical"
      aria-label={t('assets.resizeColumn', { column: label })}
      aria-valuenow={width ?? initial}
      aria-valuemin={min}
      aria-valuemax={max}
      tabIndex={0}
      className="col-resize"
      data-testid={`resize-${column}`}
      onPointerDown={(event: PointerEvent<HTMLSpanElement>) => {
        if (event.button !== 0) return;
        event.preventDefault();
        event.currentTarget.setPointerCapture(event.pointerId);
        drag.current = { x: event.clientX, width: drawnWidth(event.currentTarget) };
      }}
      onPointerMove={(event: PointerEvent<HTMLSpanElement>) => {
        const start = drag.current;
        if (start) onResize(column, clampWidth(column, start.width + event.clientX - start.x));
      }}
      onPointerUp={(event: PointerEvent<HTMLSpanElement>) => {
        drag.current = null;
        event.currentTarget.releasePointerCapture(event.pointerId);
      }}
      onPointerCancel={() => {
        drag.current = null;
      }}
      onKeyDown={(event: KeyboardEvent<HTMLSpanElement>) => {
        const by = event.shiftKey ? bigStep : step;
        const from = drawnWidth(event.currentTarget);
        const next =
          event.key === 'ArrowRight'
            ? from + by
            : event.key === 'ArrowLeft'
              ? from - by
              : event.key === 'Home'
                ? min
                : event.key === 'End'
                  ? max
                  : null;
        if (next === null) return;
        event.preventDefault();
        onResize(column, clampWidth(column, next));
      }}
    />
  );
}
