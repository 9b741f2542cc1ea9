/**
 * Service checks in a table: status, uptime, latency, certificate expiry, and (for those who may change
 * things) run now, history, edit and delete. The Checks page shows every check; an asset's page its own.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { ServiceCheck, ServiceCheckResult } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { Dialog } from '../../components/Dialog';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { QueryStates } from '../../components/QueryStates';
import { Time } from '../../components/Time';
import { formatDuration, formatPercent } from '../../components/units';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
import { CheckFormDialog, checksKey } from './CheckFormDialog';
import { RunFromName } from './RunFrom';

const uptime = (share: number | null) => (share === null ? '—' : formatPercent(share * 100));

function StatusCell({ check }: { check: ServiceCheck }) {
  const { t } = useT();
  if (!check.enabled) return <span className="muted">{t('checks.paused')}</span>;
  if (check.status === 'unknown') {
    // Unknown after a run: its agent could not run it (decision 0084); the reason is the last error.
    return check.last_run_at === null ? (
      <span className="muted">{t('checks.notRunYet')}</span>
    ) : (
      <span className="muted">
        {t('checks.unknownBecause', { error: check.last_error ?? t('checks.notRun') })}
      </span>
    );
  }
  return (
    <span className={check.status === 'up' ? undefined : 'field-error'} title={check.last_error ?? undefined}>
      {check.status === 'up' ? t('checks.up') : t('checks.down', { n: check.consecutive_failures })}
    </span>
  );
}

function RunButton({ check }: { check: ServiceCheck }) {
  const { t } = useT();
  const [result, setResult] = useState<ServiceCheckResult | null>(null);
  const run = useResourceMutation({
    mutationFn: async () => (await hub.call('checks.run', { params: { id: check.id } })).data,
    invalidates: [checksKey],
    onSuccess: setResult,
  });
  return (
    <>
      <button
        type="button"
        disabled={run.isPending}
        aria-label={t('checks.runNowNamed', { name: check.name })}
        onClick={() => {
          run.mutate();
        }}
      >
        {run.isPending ? t('checks.running') : t('checks.runNow')}
      </button>
      {result && (
        <span role="status" className={result.ok ? 'muted' : 'field-error'}>
          {result.ok
            ? result.latency_ms === null
              ? t('checks.resultUp')
              : t('checks.resultUpIn', { latency: formatDuration(result.latency_ms) })
            : t('checks.resultFailed', { ran: result.ran ? 'yes' : 'no', error: result.error ?? '' })}
        </span>
      )}
      {run.isError && <ErrorNotice error={run.error} />}
    </>
  );
}

function HistoryDialog({ check, onClose }: { check: ServiceCheck; onClose: () => void }) {
  const { t } = useT();
  const results = useQuery({
    queryKey: [...checksKey, check.id, 'results'],
    queryFn: async () =>
      (await hub.call('checks.results', { params: { id: check.id }, query: { per_page: 100 } })).data,
  });
  return (
    <Dialog open title={t('checks.historyOf', { name: check.name })} onClose={onClose}>
      <QueryStates
        query={results}
        loadingLabel={t('checks.loadingHistory')}
        empty={<p>{t('checks.noRun')}</p>}
      >
        {(rows) => (
          <div
            className="rows-scroll"
            tabIndex={0}
            role="region"
            aria-label={t('checks.runsScroll', { name: check.name })}
          >
            <table className="data-table" aria-label={t('checks.runsOf', { name: check.name })}>
              <thead>
                <tr>
                  <th scope="col">{t('checks.historyColumn', { column: 'at' })}</th>
                  <th scope="col">{t('checks.historyColumn', { column: 'outcome' })}</th>
                  <th scope="col">{t('checks.historyColumn', { column: 'latency' })}</th>
                  <th scope="col">{t('checks.historyColumn', { column: 'statusCode' })}</th>
                  <th scope="col">{t('checks.historyColumn', { column: 'error' })}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <td>
                      <Time value={r.at} />
                    </td>
                    <td>{t('checks.outcome', { outcome: r.ran ? (r.ok ? 'up' : 'down') : 'none' })}</td>
                    <td className="cell-number">
                      {r.latency_ms === null ? '—' : formatDuration(r.latency_ms)}
                    </td>
                    <td className="cell-number">{r.status_code ?? '—'}</td>
                    <td className="cell-wide" translate="no">
                      {r.error ?? '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          {t('checks.close')}
        </button>
      </div>
    </Dialog>
  );
}

export function ChecksTable({
  assetId,
  creating,
  onCreated,
}: {
  /** Only this asset's checks, and new ones about it. */
  assetId?: string;
  /** The create form is open (the page's header button sets it). */
  creating: boolean;
  onCreated: () => void;
}) {
  const { t } = useT();
  const { canMutate } = useSession();
  const [editing, setEditing] = useState<ServiceCheck | null>(null);
  const [deleting, setDeleting] = useState<ServiceCheck | null>(null);
  const [history, setHistory] = useState<ServiceCheck | null>(null);
  const checks = useQuery({
    queryKey: [...checksKey, assetId ?? 'all'],
    queryFn: async () =>
      (
        await hub.call('checks.list', {
          query: { per_page: 500, ...(assetId !== undefined ? { asset: assetId } : {}) },
        })
      ).data,
    refetchInterval: 5_000,
  });
  const remove = useResourceMutation({
    mutationFn: async (record: ServiceCheck) =>
      (await hub.call('checks.delete', { params: { id: record.id } })).data,
    invalidates: [checksKey],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  return (
    <>
      <QueryStates
        query={checks}
        loadingLabel={t('checks.loading')}
        empty={
          <EmptyState title={t('checks.none')}>
            <p>{t('checks.noneText')}</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('checks.title')}>
              <thead>
                <tr>
                  {(
                    [
                      'name',
                      'target',
                      'runsFrom',
                      'status',
                      'uptime24h',
                      'uptime7d',
                      'latency',
                      'certificate',
                      'lastRun',
                      'actions',
                    ] as const
                  ).map((column) => (
                    <th key={column} scope="col">
                      {t('checks.column', { column })}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id} data-check-id={c.id}>
                    <th scope="row" translate="no">
                      {c.name}
                    </th>
                    <td className="cell-wide" translate="no">
                      {c.kind} {c.target}
                    </td>
                    <td>
                      <RunFromName assetId={c.run_from_asset_id} />
                    </td>
                    <td>
                      <StatusCell check={c} />
                    </td>
                    <td className="cell-number">{uptime(c.uptime_24h)}</td>
                    <td className="cell-number">{uptime(c.uptime_7d)}</td>
                    <td className="cell-number">
                      {c.last_latency_ms === null ? '—' : formatDuration(c.last_latency_ms)}
                    </td>
                    <td className={c.cert_expiring ? 'field-error' : undefined}>
                      <Time value={c.cert_expires_at} />
                      {c.cert_expiring && ` ${t('checks.certSoon')}`}
                    </td>
                    <td>
                      <Time value={c.last_run_at} />
                    </td>
                    <td>
                      <div className="row-actions">
                        <button
                          type="button"
                          aria-label={t('checks.historyOf', { name: c.name })}
                          onClick={() => {
                            setHistory(c);
                          }}
                        >
                          {t('checks.history')}
                        </button>
                        {canMutate && <RunButton check={c} />}
                        {canMutate && (
                          <EditDeleteButtons
                            name={c.name}
                            onEdit={() => {
                              setEditing(c);
                            }}
                            onDelete={() => {
                              setDeleting(c);
                            }}
                          />
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {(creating || editing) && (
        <CheckFormDialog
          check={editing}
          {...(assetId !== undefined ? { assetId } : {})}
          onClose={() => {
            onCreated();
            setEditing(null);
          }}
        />
      )}
      {history && (
        <HistoryDialog
          check={history}
          onClose={() => {
            setHistory(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => t('checks.deleteTitle', { name: record.name })}
        confirmLabel={t('checks.deleteConfirm')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>{t('checks.deleteText')}</p>}
      </ConfirmMutationDialog>
    </>
  );
}
