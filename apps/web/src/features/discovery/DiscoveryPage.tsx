/**
 * Discovery: run it (the agents' containers and listening ports; a LAN CIDR when the setting allows), see
 * what it suggested, and accept or dismiss each suggestion, or watch it with a service check in one click
 * (WatchButton.tsx). Nothing becomes an asset unless a person accepts a LAN host here.
 */
import { useState, type SyntheticEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import {
  suggestionKinds,
  suggestionStatuses,
  type DiscoveryRunRequest,
  type DiscoveryRunResult,
  type DiscoverySuggestion,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmDialog } from '../../components/Dialog';
import { FilterSelect } from '../../components/FilterSelect';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { PageHeader } from '../../components/PageHeader';
import { PagedQueryStates } from '../../components/QueryStates';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';
import type { Translator } from '../../i18n/translator';
import { WatchButton } from './WatchButton';

const perPage = 50;

function isStatus(value: string): value is DiscoverySuggestion['status'] {
  return (suggestionStatuses as readonly string[]).includes(value);
}

function isKind(value: string): value is DiscoverySuggestion['kind'] {
  return (suggestionKinds as readonly string[]).includes(value);
}

/** What a suggestion's detail says: a container's state (the engine's word, data), stack and ports. */
function SuggestionDetail({ suggestion: s }: { suggestion: DiscoverySuggestion }) {
  const { t } = useT();
  const d = s.detail;
  if (s.kind === 'container') {
    const more = [
      d.compose_project ? t('discovery.stack', { name: d.compose_project }) : null,
      d.ports?.length ? t('discovery.ports', { ports: d.ports.join(', ') }) : null,
    ].filter((text) => text !== null);
    return (
      <>
        {d.state && <span translate="no">{d.state}</span>}
        {d.state && more.length > 0 && ' · '}
        {more.join(' · ')}
      </>
    );
  }
  if (s.kind === 'port') return d.address ? t('discovery.on', { address: d.address }) : '';
  return d.ports?.length ? t('discovery.tcp', { ports: d.ports.join(', ') }) : '';
}

function runSummary(r: DiscoveryRunResult, t: Translator['t']): string {
  const done = t('discovery.done', {
    answered: r.agents.answered,
    asked: r.agents.asked,
    found: r.found,
    suggestions: r.new_suggestions,
  });
  return r.lan
    ? t('discovery.doneLan', { done, cidr: r.lan.cidr, hosts: r.lan.hosts_found, probes: r.lan.probes })
    : t('discovery.doneEnd', { done });
}

function RunForm({ onDone }: { onDone: (result: DiscoveryRunResult) => void }) {
  const { t } = useT();
  const client = useQueryClient();
  const [cidr, setCidr] = useState('');
  const [ports, setPorts] = useState('');
  const run = useMutation({
    mutationFn: async (body: DiscoveryRunRequest) => (await hub.call('discovery.run', { body })).data,
    onSuccess: async (result) => {
      onDone(result);
      await client.invalidateQueries({ queryKey: ['discovery'] });
    },
  });
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const portList = ports
      .split(/[\s,]+/)
      .filter(Boolean)
      .map(Number)
      .filter((p) => Number.isInteger(p));
    run.mutate(
      cidr.trim() ? { lan: { cidr: cidr.trim(), ...(portList.length ? { ports: portList } : {}) } } : {},
    );
  };
  return (
    <form className="filters discovery-run" onSubmit={submit} aria-label={t('discovery.run')}>
      <label>
        {t('discovery.cidr')}
        <input
          value={cidr}
          onChange={(e) => {
            setCidr(e.target.value);
          }}
          placeholder="192.168.1.0/24"
          translate="no"
        />
      </label>
      <label>
        {t('discovery.portsOptional')}
        <input
          value={ports}
          onChange={(e) => {
            setPorts(e.target.value);
          }}
          placeholder="22, 80, 443"
          translate="no"
        />
      </label>
      <div className="form-submit">
        <button type="submit" className="primary" disabled={run.isPending}>
          {run.isPending ? t('discovery.running') : t('discovery.run')}
        </button>
      </div>
      {run.isError && <ErrorNotice error={run.error} />}
    </form>
  );
}

interface Deciding {
  suggestion: DiscoverySuggestion;
  action: 'accept' | 'dismiss';
}

function DecideDialog({
  deciding,
  onClose,
}: {
  deciding: Deciding | null;
  onClose: (done?: string) => void;
}) {
  const { t } = useT();
  const client = useQueryClient();
  const [name, setName] = useState('');
  const decide = useMutation({
    mutationFn: async ({ suggestion, action }: Deciding) =>
      action === 'accept'
        ? (
            await hub.call('discovery.accept', {
              params: { id: suggestion.id },
              body: suggestion.kind === 'host' && name.trim() ? { name: name.trim() } : {},
            })
          ).data
        : (await hub.call('discovery.dismiss', { params: { id: suggestion.id } })).data,
    onSuccess: async (result) => {
      setName('');
      onClose(
        t('discovery.decided', {
          title: result.title,
          outcome:
            result.status === 'accepted' ? (result.created_asset_id ? 'added' : 'accepted') : 'dismissed',
        }),
      );
      await client.invalidateQueries({ queryKey: ['discovery'] });
      if (result.created_asset_id) await client.invalidateQueries({ queryKey: ['assets'] });
    },
  });
  const s = deciding?.suggestion;
  const accepting = deciding?.action === 'accept';
  return (
    <ConfirmDialog
      open={deciding !== null}
      title={t(accepting ? 'discovery.acceptTitle' : 'discovery.dismissTitle', { title: s?.title ?? '' })}
      confirmLabel={
        accepting
          ? t(s?.kind === 'host' ? 'discovery.addAsAsset' : 'discovery.accept')
          : t('discovery.dismiss')
      }
      busy={decide.isPending}
      onConfirm={() => {
        if (deciding) decide.mutate(deciding);
      }}
      onClose={() => {
        decide.reset();
        onClose();
      }}
    >
      {accepting && s?.kind === 'host' ? (
        <>
          <p>{t('discovery.hostText')}</p>
          <label>
            {t('discovery.assetName')}
            <input
              value={name}
              placeholder={s.detail.address ?? ''}
              onChange={(e) => {
                setName(e.target.value);
              }}
            />
          </label>
        </>
      ) : accepting ? (
        <p>{t('discovery.acceptText')}</p>
      ) : (
        <p>{t('discovery.dismissText')}</p>
      )}
      {decide.isError && <ErrorNotice error={decide.error} />}
    </ConfirmDialog>
  );
}

export function DiscoveryPage() {
  const { rich, t } = useT();
  const { canMutate } = useSession();
  const [params, setParams] = useSearchParams();
  const rawStatus = params.get('status') ?? 'pending';
  const status = isStatus(rawStatus) ? rawStatus : null;
  const rawKind = params.get('kind') ?? '';
  const kind = isKind(rawKind) ? rawKind : null;
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const [notice, setNotice] = useState<string | null>(null);
  const [made, setMade] = useState<string | null>(null);
  const [failed, setFailed] = useState<unknown>(null);
  const [deciding, setDeciding] = useState<Deciding | null>(null);
  const suggestions = useQuery({
    queryKey: ['discovery', 'suggestions', status, kind, page],
    queryFn: () =>
      hub.call('discovery.suggestions', {
        query: { page, per_page: perPage, ...(status ? { status } : {}), ...(kind ? { kind } : {}) },
      }),
    placeholderData: keepPreviousData,
  });
  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    next.set(key, value);
    next.delete('page');
    setParams(next, { replace: true });
  };
  return (
    <section className="page" aria-labelledby="discovery-title">
      <PageHeader titleId="discovery-title" title={t('nav.discovery')} />
      <p className="muted">{t('discovery.intro')}</p>
      {canMutate && (
        <RunForm
          onDone={(result) => {
            setNotice(runSummary(result, t));
          }}
        />
      )}
      {notice && (
        <p className="notice ok" role="status">
          {notice}
        </p>
      )}
      {made && (
        <p className="notice ok" role="status">
          {rich('discovery.checkMade', {
            name: <span translate="no">{made}</span>,
            link: <Link to="/checks">{t('discovery.seeChecks')}</Link>,
          })}
        </p>
      )}
      {failed !== null && <ErrorNotice error={failed} />}
      <div className="filters" role="search" aria-label={t('discovery.filters')}>
        <FilterSelect
          id="suggestion-status"
          label={t('discovery.status')}
          value={status ?? 'all'}
          anyValue="all"
          anyLabel={t('discovery.anyStatus')}
          options={suggestionStatuses}
          optionLabel={(value) => t('discovery.statusValue', { status: value })}
          onChange={(value) => {
            setFilter('status', value);
          }}
        />
        <FilterSelect
          id="suggestion-kind"
          label={t('discovery.kind')}
          value={kind ?? ''}
          anyLabel={t('discovery.anyKind')}
          options={suggestionKinds}
          optionLabel={(k) => t('discovery.kindValue', { kind: k })}
          onChange={(value) => {
            setFilter('kind', value);
          }}
        />
      </div>
      <PagedQueryStates
        query={suggestions}
        loadingLabel={t('discovery.loading')}
        empty={
          <EmptyState title={t('discovery.none')}>
            <p>{t('discovery.noneText')}</p>
          </EmptyState>
        }
        page={page}
        perPage={perPage}
        onPage={(p) => {
          const next = new URLSearchParams(params);
          next.set('page', String(p));
          setParams(next, { replace: true });
        }}
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('discovery.suggestions')}>
              <thead>
                <tr>
                  <th scope="col">{t('discovery.kind')}</th>
                  <th scope="col">{t('discovery.found')}</th>
                  <th scope="col">{t('discovery.details')}</th>
                  <th scope="col">{t('discovery.lastSeen')}</th>
                  <th scope="col">{t('discovery.status')}</th>
                  {canMutate && <th scope="col">{t('common.actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.id}>
                    <td>{t('discovery.kindValue', { kind: s.kind })}</td>
                    <th scope="row" translate="no">
                      {s.asset_id ? <Link to={`/assets/${s.asset_id}`}>{s.title}</Link> : s.title}
                    </th>
                    <td className="muted">
                      <SuggestionDetail suggestion={s} />
                    </td>
                    <td>
                      <Time value={s.last_seen_at} />
                    </td>
                    <td>
                      {t('discovery.statusValue', { status: s.status })}
                      {s.created_asset_id && (
                        <>
                          {' '}
                          (<Link to={`/assets/${s.created_asset_id}`}>{t('discovery.asset')}</Link>)
                        </>
                      )}
                    </td>
                    {canMutate && (
                      <td>
                        <span className="row-buttons">
                          {s.status !== 'dismissed' && (
                            <WatchButton
                              suggestion={s}
                              onMade={(check) => {
                                setFailed(null);
                                setMade(check.name);
                              }}
                              onFailed={(error) => {
                                setMade(null);
                                setFailed(error);
                              }}
                            />
                          )}
                          {s.status === 'pending' && (
                            <>
                              <button
                                type="button"
                                className="small"
                                aria-label={t('discovery.acceptNamed', { title: s.title })}
                                onClick={() => {
                                  setNotice(null);
                                  setDeciding({ suggestion: s, action: 'accept' });
                                }}
                              >
                                {t('discovery.accept')}
                              </button>
                              <button
                                type="button"
                                className="small danger"
                                aria-label={t('discovery.dismissNamed', { title: s.title })}
                                onClick={() => {
                                  setNotice(null);
                                  setDeciding({ suggestion: s, action: 'dismiss' });
                                }}
                              >
                                {t('discovery.dismiss')}
                              </button>
                            </>
                          )}
                        </span>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedQueryStates>
      {canMutate && (
        <DecideDialog
          deciding={deciding}
          onClose={(message) => {
            setDeciding(null);
            if (message) setNotice(message);
          }}
        />
      )}
    </section>
  );
}
