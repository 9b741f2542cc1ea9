/**
 * The audit trail, newest first, paged by the hub, with filters (action, actor, asset, time range) kept in
 * the URL so a filtered view can be shared and the back button works. Actors that are users show their name.
 */
import { useState, type SyntheticEvent } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import type { AuditEvent, AuditQuery } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Pager } from '../../components/Pager';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';
import { fromLocalInput, toLocalInput } from '../keys/expiry';
import { useUserNames } from './audit-names';

const perPage = 50;
const filterNames = ['action', 'actor_id', 'asset_id', 'since', 'until'] as const;
type FilterName = (typeof filterNames)[number];

function filterFromParams(params: URLSearchParams): AuditQuery {
  const out: AuditQuery = {};
  for (const name of filterNames) {
    const value = params.get(name)?.trim();
    if (value) out[name] = value;
  }
  return out;
}

function pageFromParams(params: URLSearchParams): number {
  const page = Number(params.get('page'));
  return Number.isInteger(page) && page > 0 ? page : 1;
}

type Draft = Record<FilterName, string>;

function draftOf(filter: AuditQuery): Draft {
  return {
    action: filter.action ?? '',
    actor_id: filter.actor_id ?? '',
    asset_id: filter.asset_id ?? '',
    since: toLocalInput(filter.since ?? null),
    until: toLocalInput(filter.until ?? null),
  };
}

function Filters({ filter, onApply }: { filter: AuditQuery; onApply: (filter: Draft) => void }) {
  const { t } = useT();
  const [draft, setDraft] = useState<Draft>(() => draftOf(filter));
  const field = (
    name: FilterName,
    label: string,
    props: { type?: string; placeholder?: string; translate?: 'no' } = {},
  ) => (
    <label>
      {label}
      <input
        {...props}
        name={name}
        value={draft[name]}
        onChange={(e) => {
          setDraft((d) => ({ ...d, [name]: e.target.value }));
        }}
      />
    </label>
  );
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    onApply(draft);
  };
  return (
    <form className="filters audit-filters" role="search" aria-label={t('audit.filters')} onSubmit={submit}>
      {field('action', t('audit.action'), { placeholder: 'api_key.created', translate: 'no' })}
      {field('actor_id', t('audit.actor'), { placeholder: t('audit.actorPlaceholder') })}
      {field('asset_id', t('audit.asset'), { placeholder: 'ast_…', translate: 'no' })}
      {field('since', t('audit.from'), { type: 'datetime-local' })}
      {field('until', t('audit.until'), { type: 'datetime-local' })}
      <div className="filter-actions">
        <button type="submit" className="primary">
          {t('audit.apply')}
        </button>
        <button
          type="button"
          onClick={() => {
            const empty = draftOf({});
            setDraft(empty);
            onApply(empty);
          }}
        >
          {t('audit.clear')}
        </button>
      </div>
    </form>
  );
}

function detailText(detail: AuditEvent['detail']): string {
  const text = JSON.stringify(detail);
  return text === '{}' ? '' : text;
}

function AuditRows({
  events,
  userNames,
  busy,
}: {
  events: AuditEvent[];
  userNames: Map<string, string>;
  /** The rows shown are the last filter's while this one loads. */
  busy: boolean;
}) {
  const { t } = useT();
  return (
    <div className="table-wrap">
      <table className="data-table admin-table audit-table" aria-busy={busy}>
        <caption className="visually-hidden">{t('audit.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('audit.time')}</th>
            <th scope="col">{t('audit.action')}</th>
            <th scope="col">{t('audit.actor')}</th>
            <th scope="col">{t('audit.target')}</th>
            <th scope="col">{t('audit.asset')}</th>
            <th scope="col">{t('audit.address')}</th>
            <th scope="col">{t('audit.detail')}</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => {
            const name = event.actor_id ? userNames.get(event.actor_id) : undefined;
            const detail = detailText(event.detail);
            return (
              <tr key={event.id}>
                <td>
                  <Time value={event.ts} />
                </td>
                <th scope="row">
                  <code>{event.action}</code>
                </th>
                <td title={event.actor_id ?? undefined} translate="no">
                  {event.actor_type}
                  {name ? ` ${name}` : event.actor_id ? ` ${event.actor_id}` : ''}
                </td>
                <td className="wrap" translate="no">
                  {event.target_id ? `${event.target_type ?? ''} ${event.target_id}` : '—'}
                </td>
                <td translate="no">
                  {event.asset_id ? (
                    <Link to={`/assets/${encodeURIComponent(event.asset_id)}`}>{event.asset_id}</Link>
                  ) : (
                    '—'
                  )}
                </td>
                <td translate="no">{event.ip ?? '—'}</td>
                <td className="wrap detail" title={detail}>
                  {detail ? <code>{detail}</code> : '—'}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function AuditPage() {
  const { t } = useT();
  const [params, setParams] = useSearchParams();
  const filter = filterFromParams(params);
  const page = pageFromParams(params);
  const events = useQuery({
    queryKey: ['audit', 'list', filter, page],
    queryFn: () => hub.call('audit.list', { query: { ...filter, page, per_page: perPage } }),
    placeholderData: keepPreviousData,
  });
  const userNames = useUserNames(true);

  const apply = (draft: Draft) => {
    const next = new URLSearchParams();
    for (const name of filterNames) {
      const raw = draft[name].trim();
      const value = name === 'since' || name === 'until' ? fromLocalInput(raw) : raw;
      if (value) next.set(name, value);
    }
    setParams(next);
  };
  const goTo = (next: number) => {
    const copy = new URLSearchParams(params);
    copy.set('page', String(next));
    setParams(copy);
  };

  return (
    <section className="page" aria-labelledby="audit-title">
      <div className="page-header">
        <h1 id="audit-title">{t('audit.title')}</h1>
      </div>
      <Filters key={params.toString()} filter={filter} onApply={apply} />
      {events.isPending ? (
        <Loading label={t('audit.loading')} />
      ) : events.isError ? (
        <ErrorNotice error={events.error} retry={() => void events.refetch()} />
      ) : events.data.data.length === 0 ? (
        <EmptyState title={t(Object.keys(filter).length > 0 ? 'audit.noMatch' : 'audit.none')} />
      ) : (
        <>
          <AuditRows events={events.data.data} userNames={userNames} busy={events.isPlaceholderData} />
          <Pager
            page={page}
            perPage={perPage}
            total={events.data.meta.total}
            onPage={goTo}
            busy={events.isFetching}
          />
        </>
      )}
    </section>
  );
}
