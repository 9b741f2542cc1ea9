/**
 * A table of rows the browser already holds (an agent's process list, packages, log entries…): a filter
 * box, sorting by a column, and only the rows in view in the page, so 100,000 packages scroll like 10.
 */
import { useMemo, useRef, useState, type ReactNode } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useT } from '../i18n/I18nProvider';
import { EmptyState } from './EmptyState';

export interface RowsColumn<T> {
  key: string;
  label: string;
  cell: (row: T) => ReactNode;
  /** Sorts by this value when the header is pressed; absent: not sortable. */
  sortValue?: (row: T) => string | number;
  className?: string;
}

const rowHeight = 36;

function compare(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a).localeCompare(String(b), undefined, { numeric: true, sensitivity: 'base' });
}

export function RowsTable<T>({
  label,
  rows,
  columns,
  rowKey,
  filterText,
  initialSort,
  emptyTitle,
  actions,
}: {
  /** Names the table and its filter box for screen readers. */
  label: string;
  rows: readonly T[];
  columns: readonly RowsColumn<T>[];
  /** Unique among the rows; the index (in the shown order) for rows that have no identity. */
  rowKey: (row: T, index: number) => string;
  /** The text a row is found by; without it there is no filter box. */
  filterText?: (row: T) => string;
  initialSort?: { key: string; descending: boolean };
  emptyTitle: string;
  /** A last column of buttons for a row (absent for roles that may not act). */
  actions?: (row: T) => ReactNode;
}) {
  const { t } = useT();
  const [filter, setFilter] = useState('');
  const [sort, setSort] = useState(initialSort ?? null);
  const scrollRef = useRef<HTMLDivElement>(null);

  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const kept =
      needle && filterText ? rows.filter((row) => filterText(row).toLowerCase().includes(needle)) : [...rows];
    const column = sort ? columns.find((c) => c.key === sort.key) : undefined;
    const value = column?.sortValue;
    if (value) {
      kept.sort((a, b) => compare(value(a), value(b)) * (sort?.descending ? -1 : 1));
    }
    return kept;
  }, [rows, filter, filterText, sort, columns]);

  const virtualizer = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 16,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const columnCount = columns.length + (actions ? 1 : 0);

  return (
    <div className="rows-table">
      {filterText && (
        <div className="rows-toolbar">
          <label className="rows-filter">
            <span className="visually-hidden">{t('rows.filterLabel', { label })}</span>
            <input
              type="search"
              placeholder={t('rows.filterPlaceholder')}
              value={filter}
              onChange={(e) => {
                setFilter(e.target.value);
              }}
            />
          </label>
          <span className="muted" aria-live="polite">
            {shown.length === rows.length
              ? String(rows.length)
              : t('rows.shown', { shown: shown.length, total: rows.length })}
          </span>
        </div>
      )}
      {shown.length === 0 ? (
        <EmptyState title={rows.length === 0 ? emptyTitle : t('rows.noMatch')} />
      ) : (
        <div className="rows-scroll" ref={scrollRef}>
          <table className="data-table" aria-label={label} aria-rowcount={shown.length + 1}>
            <thead>
              <tr aria-rowindex={1}>
                {columns.map((c) => {
                  const active = sort?.key === c.key;
                  return (
                    <th
                      key={c.key}
                      scope="col"
                      className={c.className}
                      aria-sort={active ? (sort.descending ? 'descending' : 'ascending') : undefined}
                    >
                      {c.sortValue ? (
                        <button
                          type="button"
                          className="sort-button"
                          onClick={() => {
                            setSort({ key: c.key, descending: active ? !sort.descending : false });
                          }}
                        >
                          {c.label}
                          <span aria-hidden="true">{active ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
                        </button>
                      ) : (
                        c.label
                      )}
                    </th>
                  );
                })}
                {actions && (
                  <th scope="col">
                    <span className="visually-hidden">{t('common.actions')}</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {padTop > 0 && (
                <tr aria-hidden="true" className="spacer">
                  <td colSpan={columnCount} style={{ height: padTop }} />
                </tr>
              )}
              {items.map((item) => {
                const row = shown[item.index];
                if (row === undefined) return null;
                return (
                  <tr key={rowKey(row, item.index)} aria-rowindex={item.index + 2}>
                    {columns.map((c) => (
                      <td key={c.key} className={c.className}>
                        {c.cell(row)}
                      </td>
                    ))}
                    {actions && <td className="cell-actions">{actions(row)}</td>}
                  </tr>
                );
              })}
              {padBottom > 0 && (
                <tr aria-hidden="true" className="spacer">
                  <td colSpan={columnCount} style={{ height: padBottom }} />
                </tr>
              )}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
