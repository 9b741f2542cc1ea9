/**
 * The assets list: a virtualized table (only the rows in view are in the page) over the hub's paging, so
 * 10,000 assets scroll as smoothly as 10; filters and sort live in the URL (shareable, back button); add,
 * edit and delete for roles that may change assets.
 */
import {
  memo,
  useCallback,
  useEffect,
  useRef,
  useState,
  type CSSProperties,
  type MouseEvent,
  type ReactNode,
  type RefObject,
} from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import {
  assetSorts,
  assetStatuses,
  platforms,
  type Asset,
  type AssetSort,
  type AssetStatus,
  type Platform,
  type SavedFilterCriteria,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmDialog } from '../../components/Dialog';
import { FilterSelect } from '../../components/FilterSelect';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { useT } from '../../i18n/I18nProvider';
import { AssetFormDialog } from './AssetFormDialog';
import { lastSeenText } from './asset-format';
import { useAssetHead, useAssetPages, type AssetFilter } from './asset-rows';
import { useRowWindow } from './row-window';
import { ColumnResizeHandle, ListViewControls } from './ListViewControls';
import {
  columnLayout,
  listColumns,
  loadListView,
  rowHeights,
  saveListView,
  type ListColumn,
  type ListView,
} from './list-view';
import { SavedFilters } from './SavedFilters';
import { StatusBadge } from './StatusBadge';
import { useLiveInterval } from '../events/LiveEvents';

/** Rows rendered beyond each edge of the view: a frame's worth of a fast scroll. */
const overscan = 10;
/** Polling as the event feed's fallback; every minute while the feed is live. */
const fallbackInterval = 10_000;

function isOneOf<T extends string>(values: readonly T[], value: string | null): value is T {
  return value !== null && (values as readonly string[]).includes(value);
}

export function filterFromParams(params: URLSearchParams): AssetFilter {
  const status = params.get('status');
  const platform = params.get('platform');
  const sort = params.get('sort');
  const group = params.get('group');
  const q = params.get('q')?.trim();
  return {
    ...(isOneOf<AssetStatus>(assetStatuses, status) ? { status } : {}),
    ...(isOneOf<Platform>(platforms, platform) ? { platform } : {}),
    ...(isOneOf<AssetSort>(assetSorts, sort) ? { sort } : {}),
    ...(group ? { group } : {}),
    ...(q ? { q } : {}),
  };
}

/**
 * The orders a column's header sets. The name takes what the others leave (it is what tells ten thousand
 * rows apart); the others are as wide as chosen (list-view.ts), Tags narrow while no row in view has one.
 */
const columnSorts: Partial<Record<ListColumn, AssetSort>> = {
  name: 'name',
  status: 'status',
  platform: 'platform',
  last_seen: '-last_seen_at',
};

function GroupFilter({ value, onChange }: { value: string; onChange: (group: string) => void }) {
  const { t } = useT();
  const groups = useQuery({
    queryKey: ['groups', 'list', 'all'],
    queryFn: async () => (await hub.call('groups.list', { query: { per_page: 500 } })).data,
    staleTime: 30_000,
  });
  return (
    <div className="filter">
      <label htmlFor="filter-group">{t('assets.group')}</label>
      <select
        id="filter-group"
        value={value}
        onChange={(e) => {
          onChange(e.target.value);
        }}
        disabled={groups.isError}
      >
        <option value="">{t('assets.allGroups')}</option>
        {groups.data?.map((g) => (
          <option key={g.id} value={g.id} translate="no">
            {g.name}
          </option>
        ))}
      </select>
    </div>
  );
}

function Filters({
  params,
  setParam,
}: {
  params: URLSearchParams;
  setParam: (name: string, value: string) => void;
}) {
  const { t } = useT();
  const [text, setText] = useState(params.get('q') ?? '');
  const q = params.get('q') ?? '';
  // The box follows a search set from outside it (a saved filter applied, the back button).
  useEffect(() => {
    setText((current) => (current.trim() === q ? current : q));
  }, [q]);
  // The list follows the text as it is typed, once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => {
      if (text.trim() !== (params.get('q') ?? '')) setParam('q', text.trim());
    }, 300);
    return () => {
      clearTimeout(timer);
    };
    // Only a change of the text starts the wait (params and setParam change with every render).
  }, [text]);
  return (
    <form
      className="filters"
      role="search"
      aria-label={t('assets.filters')}
      onSubmit={(e) => {
        e.preventDefault();
        setParam('q', text.trim());
      }}
    >
      <div className="filter">
        <label htmlFor="filter-q">{t('assets.search')}</label>
        <input
          id="filter-q"
          type="search"
          name="q"
          placeholder={t('assets.searchPlaceholder')}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            if (e.target.value === '') setParam('q', '');
          }}
          onBlur={() => {
            setParam('q', text.trim());
          }}
        />
      </div>
      <FilterSelect
        id="filter-status"
        label={t('assets.status')}
        value={params.get('status') ?? ''}
        anyLabel={t('assets.anyStatus')}
        options={assetStatuses}
        optionLabel={(status) => t('asset.status', { status })}
        onChange={(value) => {
          setParam('status', value);
        }}
      />
      <FilterSelect
        id="filter-platform"
        label={t('assets.platform')}
        value={params.get('platform') ?? ''}
        anyLabel={t('assets.anyPlatform')}
        options={platforms}
        optionLabel={(platform) => t('asset.platform', { platform })}
        onChange={(value) => {
          setParam('platform', value);
        }}
      />
      <GroupFilter
        value={params.get('group') ?? ''}
        onChange={(group) => {
          setParam('group', group);
        }}
      />
    </form>
  );
}

const AssetRow = memo(function AssetRow({
  asset,
  index,
  canMutate,
  onEdit,
  onDelete,
}: {
  asset: Asset | undefined;
  index: number;
  canMutate: boolean;
  onEdit: (asset: Asset) => void;
  onDelete: (asset: Asset) => void;
}) {
  const { t } = useT();
  if (!asset) {
    return (
      <tr role="row" aria-rowindex={index + 2} className="row-loading">
        <td role="cell">
          <span className="skeleton" />
        </td>
      </tr>
    );
  }
  return (
    <tr role="row" aria-rowindex={index + 2} data-asset-id={asset.id}>
      <th role="rowheader" scope="row">
        {/* A plain link (the table's click handler routes it): a router <Link> per row costs every frame. */}
        <a href={`/assets/${encodeURIComponent(asset.id)}`} data-route title={asset.name} translate="no">
          {asset.name}
        </a>
        {asset.hub_host && <span className="chip">{t('assets.hubChip')}</span>}
      </th>
      <td role="cell" className="col-status">
        <StatusBadge status={asset.status} />
      </td>
      <td role="cell" className="col-platform">
        {t('asset.platform', { platform: asset.platform })}
      </td>
      <td
        role="cell"
        className="col-addresses cell-addresses"
        title={asset.ip_addresses.join(', ')}
        translate="no"
      >
        {asset.ip_addresses.join(', ') || <span className="muted">—</span>}
      </td>
      <td role="cell" className="col-last_seen">
        {asset.last_seen_at ? (
          <time dateTime={asset.last_seen_at}>{lastSeenText(asset, t('time.never'))}</time>
        ) : (
          t('time.never')
        )}
      </td>
      <td role="cell" className="col-tags cell-tags" translate="no">
        {asset.tags.map((t) => (
          <span key={t} className="chip">
            {t}
          </span>
        ))}
      </td>
      {canMutate && (
        <td role="cell" className="cell-actions">
          <button
            type="button"
            className="small"
            onClick={() => {
              onEdit(asset);
            }}
            aria-label={t('common.editNamed', { name: asset.name })}
          >
            {t('common.edit')}
          </button>
          <button
            type="button"
            className="small danger"
            onClick={() => {
              onDelete(asset);
            }}
            aria-label={t('common.deleteNamed', { name: asset.name })}
          >
            {t('common.delete')}
          </button>
        </td>
      )}
    </tr>
  );
});

/** The header row: its own memoized component, so a scroll does not render it again. */
const AssetsHead = memo(function AssetsHead({
  sort,
  canMutate,
  widths,
  setParam,
  onResize,
}: {
  sort: AssetSort;
  canMutate: boolean;
  widths: ListView['widths'];
  setParam: (name: string, value: string) => void;
  onResize: (column: ListColumn, width: number) => void;
}) {
  const { t } = useT();
  return (
    <thead role="rowgroup">
      <tr role="row" aria-rowindex={1}>
        {listColumns.map((column) => {
          const order = columnSorts[column];
          const active = order !== undefined && sort.replace('-', '') === order.replace('-', '');
          const descending = sort.startsWith('-');
          const label = t('assets.column', { column });
          return (
            <th
              key={column}
              role="columnheader"
              scope="col"
              className={`col-${column}`}
              // Its name is the column's, not also its resize handle's.
              aria-label={label}
              aria-sort={active ? (descending ? 'descending' : 'ascending') : undefined}
            >
              {order ? (
                <button
                  type="button"
                  className="sort-button"
                  onClick={() => {
                    const base = order.replace('-', '');
                    setParam('sort', active && !descending ? `-${base}` : base);
                  }}
                >
                  {label}
                  <span aria-hidden="true">{active ? (descending ? ' ▼' : ' ▲') : ''}</span>
                </button>
              ) : (
                label
              )}
              <ColumnResizeHandle column={column} label={label} width={widths[column]} onResize={onResize} />
            </th>
          );
        })}
        {canMutate && (
          <th role="columnheader" scope="col">
            <span className="visually-hidden">{t('common.actions')}</span>
          </th>
        )}
      </tr>
    </thead>
  );
});

/**
 * The scrolling part: only the rows in view (and a few either side) are in the page, their pages fetched as
 * they come into view. Rows of one fixed height in a grid layout, not a table's: a scroll adds the rows
 * coming into view and drops those leaving it without a table layout over all of them. Its own component,
 * so a scroll renders the rows and nothing around them.
 */
function AssetTable({
  filter,
  head,
  canMutate,
  view,
  onResize,
  setParam,
  scrollRef,
  onEdit,
  onDelete,
}: {
  filter: AssetFilter;
  head: NonNullable<ReturnType<typeof useAssetHead>['data']>;
  canMutate: boolean;
  view: ListView;
  onResize: (column: ListColumn, width: number) => void;
  setParam: (name: string, value: string) => void;
  scrollRef: RefObject<HTMLDivElement | null>;
  onEdit: (asset: Asset) => void;
  onDelete: (asset: Asset) => void;
}) {
  const total = head.meta.total;
  const navigate = useNavigate();
  /** Follows a row's link inside the console (a plain click; modified clicks open a tab as usual). */
  const routeLinkClick = (event: MouseEvent<HTMLElement>) => {
    const link = (event.target as HTMLElement).closest('a[data-route]');
    if (!link || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
      return;
    event.preventDefault();
    void navigate(link.getAttribute('href') ?? '/assets');
  };
  const rowHeight = rowHeights[view.density];
  const { first, last } = useRowWindow(scrollRef, {
    count: total,
    rowHeight,
    overscan,
    headerHeight: rowHeight,
  });
  const refetchInterval = useLiveInterval(fallbackInterval);
  const rowAt = useAssetPages(filter, head, first, last, refetchInterval);
  const rows: ReactNode[] = [];
  let anyTags = false;
  for (let index = first; index <= last; index += 1) {
    const asset = rowAt(index);
    if ((asset?.tags.length ?? 0) > 0) anyTags = true;
    rows.push(
      <AssetRow
        key={index}
        index={index}
        asset={asset}
        canMutate={canMutate}
        onEdit={onEdit}
        onDelete={onDelete}
      />,
    );
  }
  // Density, hidden columns and widths are the table's classes and one custom property: a change restyles
  // the rows in view without rendering any of them again.
  const hiddenClasses = view.hidden.map((column) => ` hide-${column}`).join('');
  const tableClass = `data-table assets-table density-${view.density}${hiddenClasses}`;
  const layout = columnLayout(view, { anyTags, canMutate });
  const tableStyle = { '--asset-columns': layout.template, minWidth: layout.minWidth } as CSSProperties;
  return (
    <div className="table-scroll" ref={scrollRef} data-testid="assets-scroll">
      {/* Rows laid out as a grid, not a table: the roles keep what a table tells a screen reader. */}
      <table className={tableClass} style={tableStyle} role="table" aria-rowcount={total + 1}>
        <AssetsHead
          sort={filter.sort ?? 'name'}
          canMutate={canMutate}
          widths={view.widths}
          setParam={setParam}
          onResize={onResize}
        />
        {/* As tall as every row; the rows before the window are its top padding (one style, not one a row). */}
        <tbody
          role="rowgroup"
          onClick={routeLinkClick}
          style={{ height: total * rowHeight, paddingTop: first * rowHeight }}
        >
          {rows}
        </tbody>
      </table>
    </div>
  );
}

export function AssetsPage() {
  const { t } = useT();
  const { canMutate } = useSession();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const filter = filterFromParams(params);
  const scrollRef = useRef<HTMLDivElement>(null);
  const [editing, setEditing] = useState<Asset | null | 'new'>(null);
  const [deleting, setDeleting] = useState<Asset | null>(null);
  const [view, setView] = useState(loadListView);

  useEffect(() => {
    saveListView(view);
  }, [view]);
  const resizeColumn = useCallback((column: ListColumn, width: number) => {
    setView((previous) => ({ ...previous, widths: { ...previous.widths, [column]: width } }));
  }, []);

  const setParam = (name: string, value: string) => {
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
    scrollRef.current?.scrollTo({ top: 0 });
  };

  const applyCriteria = (criteria: SavedFilterCriteria) => {
    setParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        for (const field of ['q', 'status', 'platform', 'group', 'sort'] as const) {
          const value = criteria[field];
          if (value) next.set(field, value);
          else next.delete(field);
        }
        return next;
      },
      { replace: true },
    );
    scrollRef.current?.scrollTo({ top: 0 });
  };

  const head = useAssetHead(filter, useLiveInterval(fallbackInterval));
  const total = head.data?.meta.total ?? 0;

  const remove = useMutation({
    mutationFn: async (asset: Asset) => (await hub.call('assets.delete', { params: { id: asset.id } })).data,
    onSuccess: async () => {
      setDeleting(null);
      await client.invalidateQueries({ queryKey: ['assets'] });
      await client.invalidateQueries({ queryKey: ['status'] });
    },
  });

  return (
    <section className="page assets-page" aria-labelledby="assets-title">
      <div className="page-header">
        <h1 id="assets-title">{t('assets.title')}</h1>
        <span className="muted" aria-live="polite">
          {head.isSuccess ? t('assets.count', { n: total }) : ''}
        </span>
        {canMutate && (
          <button
            type="button"
            className="primary"
            onClick={() => {
              setEditing('new');
            }}
          >
            {t('assets.addDevice')}
          </button>
        )}
      </div>
      <Filters params={params} setParam={setParam} />
      <div className="list-toolbar">
        <SavedFilters current={filter} onApply={applyCriteria} />
        <ListViewControls view={view} onChange={setView} />
      </div>
      {head.isError && <ErrorNotice error={head.error} retry={() => void head.refetch()} />}
      {head.isPending && <Loading label={t('assets.loading')} />}
      {head.isSuccess && total === 0 && (
        <EmptyState title={Object.keys(filter).length > 0 ? t('assets.noMatch') : t('assets.none')}>
          {canMutate && Object.keys(filter).length === 0 && <p>{t('assets.noneHint')}</p>}
        </EmptyState>
      )}
      {head.isSuccess && total > 0 && (
        <AssetTable
          filter={filter}
          head={head.data}
          canMutate={canMutate}
          view={view}
          onResize={resizeColumn}
          setParam={setParam}
          scrollRef={scrollRef}
          onEdit={setEditing}
          onDelete={setDeleting}
        />
      )}
      {editing !== null && (
        <AssetFormDialog
          open
          asset={editing === 'new' ? null : editing}
          onClose={() => {
            setEditing(null);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={t('assets.deleteTitle', { name: deleting?.name ?? '' })}
        confirmLabel={t('assets.deleteConfirm')}
        busy={remove.isPending}
        onConfirm={() => {
          if (deleting) remove.mutate(deleting);
        }}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>{t('assets.deleteText')}</p>
        {remove.isError && <ErrorNotice error={remove.error} />}
      </ConfirmDialog>
    </section>
  );
}
