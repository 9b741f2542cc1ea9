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
import { formatTime } from '../../components/units';
import { WatchButton } from './WatchButton';

const perPage = 50;
const kindLabel: Record<DiscoverySuggestion['kind'], string> = {
  container: 'Container',
  port: 'Listening port',
  host: 'LAN host',
};

function isStatus(value: string): value is DiscoverySuggestion['status'] {
  return (suggestionStatuses as readonly string[]).includes(value);
}

function isKind(value: string): value is DiscoverySuggestion['kind'] {
  return (suggestionKinds as readonly string[]).includes(value);
}

function detailText(s: DiscoverySuggestion): string {
  const d = s.detail;
  if (s.kind === 'container')
    return [
      d.state,
      d.compose_project ? `stack ${d.compose_project}` : null,
      d.ports?.length ? `ports ${d.ports.join(', ')}` : null,
    ]
      .filter(Boolean)
      .join(' · ');
  if (s.kind === 'port') return d.address ? `on ${d.address}` : '';
  return d.ports?.length ? `TCP ${d.ports.join(', ')}` : '';
}

function runSummary(r: DiscoveryRunResult): string {
  const agents = `${r.agents.answered} of ${r.agents.asked} agents answered`;
  const lan = r.lan ? `; LAN ${r.lan.cidr}: ${r.lan.hosts_found} new hosts in ${r.lan.probes} probes` : '';
  return `Discovery done: ${agents}, ${r.found} things found, ${r.new_suggestions} new suggestions${lan}.`;
}

function RunForm({ onDone }: { onDone: (result: DiscoveryRunResult) => void }) {
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
    <form className="filters discovery-run" onSubmit={submit} aria-label="Run discovery">
      <label>
        LAN CIDR (optional)
        <input
          value={cidr}
          onChange={(e) => {
            setCidr(e.target.value);
          }}
          placeholder="192.168.1.0/24"
        />
      </label>
      <label>
        Ports (optional)
        <input
          value={ports}
          onChange={(e) => {
            setPorts(e.target.value);
          }}
          placeholder="22, 80, 443"
        />
      </label>
      <div className="form-submit">
        <button type="submit" className="primary" disabled={run.isPending}>
          {run.isPending ? 'Discovering…' : 'Run discovery'}
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
        result.status === 'accepted'
          ? result.created_asset_id
            ? `${result.title}: accepted, added as an asset`
            : `${result.title}: accepted`
          : `${result.title}: dismissed`,
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
      title={accepting ? `Accept ${s?.title ?? ''}?` : `Dismiss ${s?.title ?? ''}?`}
      confirmLabel={accepting ? (s?.kind === 'host' ? 'Add as asset' : 'Accept') : 'Dismiss'}
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
          <p>The host becomes a manual asset with this address; an agent can be enrolled on it later.</p>
          <label>
            Asset name
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
        <p>Marks it as known. It lives on its asset already; nothing else changes.</p>
      ) : (
        <p>Later runs that find it again leave it dismissed.</p>
      )}
      {decide.isError && <ErrorNotice error={decide.error} />}
    </ConfirmDialog>
  );
}

export function DiscoveryPage() {
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
      <PageHeader titleId="discovery-title" title="Discovery" />
      <p className="muted">
        Containers and listening ports the agents report, and hosts on a LAN range when the LAN scan is
        enabled in the settings. Each finding waits here until someone accepts or dismisses it.
      </p>
      {canMutate && (
        <RunForm
          onDone={(result) => {
            setNotice(runSummary(result));
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
          {made}: check made. <Link to="/checks">See it on the Checks page</Link>.
        </p>
      )}
      {failed !== null && <ErrorNotice error={failed} />}
      <div className="filters" role="search" aria-label="Filter suggestions">
        <FilterSelect
          id="suggestion-status"
          label="Status"
          value={status ?? 'all'}
          anyValue="all"
          anyLabel="Any status"
          options={suggestionStatuses}
          onChange={(value) => {
            setFilter('status', value);
          }}
        />
        <FilterSelect
          id="suggestion-kind"
          label="Kind"
          value={kind ?? ''}
          anyLabel="Any kind"
          options={suggestionKinds}
          optionLabel={(k) => kindLabel[k]}
          onChange={(value) => {
            setFilter('kind', value);
          }}
        />
      </div>
      <PagedQueryStates
        query={suggestions}
        loadingLabel="Loading suggestions"
        empty={
          <EmptyState title="No suggestions">
            <p>Run discovery to ask the agents what runs on their hosts.</p>
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
            <table className="data-table" aria-label="Suggestions">
              <thead>
                <tr>
                  <th scope="col">Kind</th>
                  <th scope="col">Found</th>
                  <th scope="col">Details</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Status</th>
                  {canMutate && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((s) => (
                  <tr key={s.id}>
                    <td>{kindLabel[s.kind]}</td>
                    <th scope="row">
                      {s.asset_id ? <Link to={`/assets/${s.asset_id}`}>{s.title}</Link> : s.title}
                    </th>
                    <td className="muted">{detailText(s)}</td>
                    <td>
                      <time dateTime={s.last_seen_at}>{formatTime(s.last_seen_at)}</time>
                    </td>
                    <td>
                      {s.status}
                      {s.created_asset_id && (
                        <>
                          {' '}
                          (<Link to={`/assets/${s.created_asset_id}`}>asset</Link>)
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
                                aria-label={`Accept ${s.title}`}
                                onClick={() => {
                                  setNotice(null);
                                  setDeciding({ suggestion: s, action: 'accept' });
                                }}
                              >
                                Accept
                              </button>
                              <button
                                type="button"
                                className="small danger"
                                aria-label={`Dismiss ${s.title}`}
                                onClick={() => {
                                  setNotice(null);
                                  setDeciding({ suggestion: s, action: 'dismiss' });
                                }}
                              >
                                Dismiss
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
