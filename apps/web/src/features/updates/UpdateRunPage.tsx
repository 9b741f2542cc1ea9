/**
 * One update run (`/updates/runs/:id`): what it does and its state, then one block per target as results
 * arrive (the event feed's `update_run.*` refresh it; polled while it runs as the fallback): status, how many
 * changes, exit code, duration, reboot; opened, the planned (dry run) or done (apply) changes with versions and
 * the manager's output in a bounded block. Cancel while it is scheduled or running, for roles that may.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import type { PlannedChange, UpdateRunDetail, UpdateTargetSummary } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { RowsTable, type RowsColumn } from '../../components/RowsTable';
import { Time } from '../../components/Time';
import { formatDuration } from '../../components/units';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
import { useLiveInterval } from '../events/LiveEvents';
import { resultKey, runKey, updatesKey } from './updates-keys';
import { CountsText } from './CountsText';
import { isActive, versionsText } from './updates-text';

/** With this many targets or fewer, each opens with its changes and output shown. */
const unfoldedTargets = 3;

function useChangeColumns(): RowsColumn<PlannedChange>[] {
  const { t } = useT();
  return [
    {
      key: 'name',
      label: t('updates.changeColumn', { column: 'name' }),
      cell: (c) => <span translate="no">{c.name}</span>,
      sortValue: (c) => c.name,
    },
    {
      key: 'action',
      label: t('updates.changeColumn', { column: 'action' }),
      cell: (c) => t('updates.changeAction', { action: c.action }),
      sortValue: (c) => c.action,
    },
    {
      key: 'versions',
      label: t('updates.changeColumn', { column: 'versions' }),
      cell: (c) => <span translate="no">{versionsText(c)}</span>,
    },
  ];
}

const statusClass: Partial<Record<UpdateTargetSummary['status'], string>> = {
  ok: 'result-ok',
  failed: 'result-error',
  offline: 'result-offline',
};

function TargetResult({ run, target }: { run: UpdateRunDetail; target: UpdateTargetSummary }) {
  const { t } = useT();
  const changeColumns = useChangeColumns();
  const result = useQuery({
    queryKey: resultKey(run.id, target.asset_id),
    queryFn: async () =>
      (await hub.call('updates.runs.result', { params: { id: run.id, asset_id: target.asset_id } })).data,
    staleTime: Infinity,
  });
  if (result.isPending) return <Loading label={t('updates.loadingResult')} />;
  if (result.isError) return <ErrorNotice error={result.error} retry={() => void result.refetch()} />;
  const r = result.data;
  const dry = r.mode === 'dry_run';
  return (
    <>
      <RowsTable
        label={t('updates.changesOn', { dry: dry ? 'yes' : 'no', name: target.asset_name })}
        rows={r.change_list}
        columns={changeColumns}
        rowKey={(c, index) => `${c.name}:${String(index)}`}
        filterText={r.change_list.length > 20 ? (c) => c.name : undefined}
        emptyTitle={t('updates.nothing', { dry: dry ? 'yes' : 'no' })}
      />
      {r.changes_truncated && <p className="chip truncated">{t('updates.moreChanges')}</p>}
      {r.output !== '' && (
        <div className="output">
          <h4>{t('updates.outputOf', { manager: r.manager ?? 'none' })}</h4>
          <pre
            className="mono"
            translate="no"
            aria-label={t('updates.outputOn', { name: target.asset_name })}
          >
            {r.output}
          </pre>
          {r.output_truncated && <p className="chip truncated">{t('updates.outputEnd')}</p>}
        </div>
      )}
    </>
  );
}

function Target({
  run,
  target,
  unfolded,
}: {
  run: UpdateRunDetail;
  target: UpdateTargetSummary;
  unfolded: boolean;
}) {
  const { t } = useT();
  const [open, setOpen] = useState(unfolded);
  const finished = target.status === 'ok' || target.status === 'failed';
  return (
    <li className={`result ${statusClass[target.status] ?? ''}`} data-asset-id={target.asset_id}>
      <details
        open={open}
        onToggle={(e) => {
          setOpen(e.currentTarget.open);
        }}
      >
        <summary>
          <span className="result-name" translate="no">
            {target.asset_name}
          </span>
          <span className="result-status">{t('updates.targetStatus', { status: target.status })}</span>
          {finished && (
            <span className="result-exit">
              {t('updates.changes', { n: target.changes, dry: run.mode === 'dry_run' ? 'yes' : 'no' })}
            </span>
          )}
          {target.exit_code !== null && (
            <span className="result-exit">{t('updates.exitCode', { code: String(target.exit_code) })}</span>
          )}
          {target.duration_ms !== null && (
            <span className="result-duration" translate="no">
              {formatDuration(target.duration_ms)}
            </span>
          )}
          {target.timed_out && <span className="chip truncated">{t('updates.timedOut')}</span>}
          {target.reboot_required && <span className="chip">{t('updates.rebootRequired')}</span>}
          {target.rebooting && <span className="chip">{t('updates.rebooting')}</span>}
        </summary>
        <p className="small">
          <Link to={`/assets/${encodeURIComponent(target.asset_id)}/updates`}>
            {t('updates.updatesOf', { name: target.asset_name })}
          </Link>
        </p>
        {target.error && (
          <p className="result-error" translate="no">
            {target.error}
          </p>
        )}
        {open && finished && <TargetResult run={run} target={target} />}
        {!finished && !target.error && (
          <p className="muted small">
            {target.status === 'pending' || target.status === 'running'
              ? t('updates.waiting')
              : t('updates.notRun')}
          </p>
        )}
      </details>
    </li>
  );
}

function Facts({ run }: { run: UpdateRunDetail }) {
  const { t, rich } = useT();
  return (
    <dl className="facts" aria-label={t('updates.facts')}>
      <div>
        <dt>{t('updates.fact', { fact: 'status' })}</dt>
        <dd data-testid="update-run-status">
          {t('updates.runStatus', { status: run.status })}
          {run.status_reason && <span translate="no">{` (${run.status_reason})`}</span>}
        </dd>
      </div>
      <div>
        <dt>{t('updates.fact', { fact: 'results' })}</dt>
        <dd>
          <CountsText counts={run.counts} />
        </dd>
      </div>
      <div>
        <dt>{t('updates.fact', { fact: 'updates' })}</dt>
        <dd>
          {t('updates.selection', { selection: run.selection })}
          {run.packages.length > 0 && <span translate="no">{`: ${run.packages.join(', ')}`}</span>}
        </dd>
      </div>
      <div>
        <dt>{t('updates.fact', { fact: 'concurrency' })}</dt>
        <dd>
          {run.concurrency}
          {run.max_failures !== null && t('updates.stopsAfter', { n: run.max_failures })}
        </dd>
      </div>
      {run.mode === 'apply' && (
        <div>
          <dt>{t('updates.fact', { fact: 'reboot' })}</dt>
          <dd>{t('updates.yesNo', { value: run.reboot_if_required ? 'yes' : 'no' })}</dd>
        </div>
      )}
      <div>
        <dt>{t('updates.fact', { fact: run.start === 'next_window' ? 'window' : 'starts' })}</dt>
        <dd>
          <Time value={run.started_at ?? run.scheduled_at ?? run.created_at} />
          {run.window_ends_at && <> {rich('updates.until', { time: <Time value={run.window_ends_at} /> })}</>}
        </dd>
      </div>
      <div>
        <dt>{t('updates.fact', { fact: 'finished' })}</dt>
        <dd>
          <Time value={run.finished_at} />
        </dd>
      </div>
      <div>
        <dt>{t('updates.fact', { fact: 'by' })}</dt>
        <dd translate="no">{run.created_by}</dd>
      </div>
    </dl>
  );
}

export function UpdateRunPage() {
  const { t } = useT();
  const { id = '' } = useParams();
  const { canMutate } = useSession();
  const [cancelling, setCancelling] = useState<UpdateRunDetail | null>(null);
  const fallback = useLiveInterval(2_000);
  const run = useQuery({
    queryKey: runKey(id),
    queryFn: async () => (await hub.call('updates.runs.get', { params: { id } })).data,
    // The feed's update_run.* events refresh it at once; polled while it may still change.
    refetchInterval: (query) => (query.state.data && isActive(query.state.data) ? fallback : false),
  });
  const cancel = useResourceMutation({
    mutationFn: async (r: UpdateRunDetail) =>
      (await hub.call('updates.runs.cancel', { params: { id: r.id } })).data,
    invalidates: [updatesKey],
    onSuccess: () => {
      setCancelling(null);
    },
  });
  if (run.isPending) return <Loading label={t('updates.loadingRun')} />;
  if (run.isError) return <ErrorNotice error={run.error} retry={() => void run.refetch()} />;
  const r = run.data;
  const title = t('updates.runTitle', { mode: r.mode, selection: r.selection });
  return (
    <section className="page" aria-labelledby="update-run-title">
      <p className="breadcrumbs">
        <Link to="/updates">{t('updates.title')}</Link> /{' '}
        <Link to="/updates/runs">{t('updates.tab', { tab: 'runs' })}</Link> /
      </p>
      <div className="page-header">
        <h1 id="update-run-title">{title}</h1>
        {canMutate && isActive(r) && (
          <button
            type="button"
            className="danger"
            onClick={() => {
              setCancelling(r);
            }}
          >
            {t('updates.cancelRun')}
          </button>
        )}
      </div>
      <Facts run={r} />
      <div className="run-results">
        <h2>{t('updates.targetsHeading')}</h2>
        {r.results.length === 0 ? (
          <p className="muted">
            {r.status === 'scheduled' ? t('updates.resolvedAtStart') : t('updates.noTargets')}
          </p>
        ) : (
          <ul className="results-list" aria-label={t('updates.targetsHeading')}>
            {r.results.map((target) => (
              <Target
                key={target.asset_id}
                run={r}
                target={target}
                unfolded={r.results.length <= unfoldedTargets}
              />
            ))}
          </ul>
        )}
      </div>
      <ConfirmMutationDialog
        record={cancelling}
        title={() => t('updates.cancelTitle')}
        confirmLabel={t('updates.cancelRun')}
        mutation={cancel}
        onClose={() => {
          setCancelling(null);
        }}
      >
        {() => <p>{t('updates.cancelText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
