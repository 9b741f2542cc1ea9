/**
 * How this browser shows the assets list (decision 0096): density, shown columns and their widths. Kept in
 * localStorage, not the hub: they follow the screen (a laptop and a wall display want different ones), as
 * Proxmox VE and Portainer keep theirs. Pure, apart from `loadListView` and `saveListView`.
 */

export const listColumns = ['name', 'status', 'platform', 'addresses', 'last_seen', 'tags'] as const;
export type ListColumn = (typeof listColumns)[number];
/** Every column but the name, which is always shown: it is what tells the rows apart. */
export type HideableColumn = Exclude<ListColumn, 'name'>;

export const densities = ['comfortable', 'compact'] as const;
export type Density = (typeof densities)[number];

/** Row heights in pixels, as styles.css draws them: compact is about two thirds of comfortable. */
export const rowHeights: Record<Density, number> = { comfortable: 40, compact: 28 };

export interface ListView {
  density: Density;
  hidden: HideableColumn[];
  /** Widths the user chose, in pixels; the name's is its least width (it takes what the others leave). */
  widths: Partial<Record<ListColumn, number>>;
}

/** Each column's width when none was chosen, and the least and most it may be dragged to. */
export const columnWidths: Record<ListColumn, { initial: number; min: number; max: number }> = {
  name: { initial: 160, min: 120, max: 800 },
  status: { initial: 104, min: 80, max: 300 },
  platform: { initial: 92, min: 72, max: 300 },
  addresses: { initial: 140, min: 80, max: 600 },
  last_seen: { initial: 104, min: 80, max: 300 },
  tags: { initial: 160, min: 48, max: 600 },
};

/** Tags while no row in view has one and no width was chosen. */
const emptyTagsWidth = 64;
const actionsWidth = 132;
/** The least width of the whole table (styles.css had it fixed). */
const tableMinWidth = 860;

export const defaultListView: ListView = { density: 'comfortable', hidden: [], widths: {} };

export function clampWidth(column: ListColumn, width: number): number {
  const { min, max } = columnWidths[column];
  return Math.round(Math.min(max, Math.max(min, width)));
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** A stored view read back: anything unknown or out of range is dropped, never trusted. */
export function parseListView(text: string | null): ListView {
  if (text === null) return defaultListView;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return defaultListView;
  }
  if (typeof value !== 'object' || value === null) return defaultListView;
  const record = value as Record<string, unknown>;
  const hidden = Array.isArray(record.hidden)
    ? record.hidden.filter((c): c is HideableColumn => isOneOf(listColumns, c) && c !== 'name')
    : [];
  const widths: Partial<Record<ListColumn, number>> = {};
  if (typeof record.widths === 'object' && record.widths !== null) {
    for (const [column, width] of Object.entries(record.widths as Record<string, unknown>)) {
      if (isOneOf(listColumns, column) && typeof width === 'number' && Number.isFinite(width))
        widths[column] = clampWidth(column, width);
    }
  }
  return {
    density: isOneOf(densities, record.density) ? record.density : 'comfortable',
    hidden: [...new Set(hidden)],
    widths,
  };
}

/** The grid's column template and the table's least width, for the columns shown. */
export function columnLayout(
  view: ListView,
  options: { anyTags: boolean; canMutate: boolean },
): { template: string; minWidth: number } {
  const parts: string[] = [];
  let total = 0;
  for (const column of listColumns) {
    if (column !== 'name' && view.hidden.includes(column)) continue;
    const chosen = view.widths[column];
    if (column === 'name') {
      const least = chosen ?? columnWidths.name.initial;
      parts.push(`minmax(${least}px, 1fr)`);
      total += least;
      continue;
    }
    const width =
      chosen ?? (column === 'tags' && !options.anyTags ? emptyTagsWidth : columnWidths[column].initial);
    parts.push(`${width}px`);
    total += width;
  }
  if (options.canMutate) {
    parts.push(`${actionsWidth}px`);
    total += actionsWidth;
  }
  return { template: parts.join(' '), minWidth: Math.max(tableMinWidth, total) };
}

const storageKey = 'svc.assets.view';

export function loadListView(): ListView {
  try {
    return parseListView(localStorage.getItem(storageKey));
  } catch {
    return defaultListView;
  }
}

export function saveListView(view: ListView): void {
  try {
    localStorage.setItem(storageKey, JSON.stringify(view));
  } catch {
    // A browser that keeps nothing (private mode, full storage) still shows the list as chosen until reload.
  }
}
