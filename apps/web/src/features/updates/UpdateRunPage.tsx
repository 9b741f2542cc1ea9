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
import { useLiveInterval } from '../events/LiveEvents';
import { resultKey, runKey, updatesKey } from './updates-keys';
import { countsText, isActive, modeText, selectionText, versionsText } from './updates-text';

/** With this many targets or fewer, each opens with its changes and output shown. */
const unfoldedTargets = 3;

const changeColumns: RowsColumn<PlannedChange>[] = [
  { key: 'name', label: 'Package', cell: (c) => c.name, sortValue: (c) => c.name },
  { key: 'action', label: 'Change', cell: (c) => c.action, sortValue: (c) => c.action },
  { key: 'versions', label: 'Versions', cell: (c) => versionsText(c) },
];

const statusClass: Partial<Record<UpdateTargetSummary['status'], string>> = {
  ok: 'result-ok',
  failed: 'result-error',
  offline: 'result-offline',
};

function TargetResult({ run, target }: { run: UpdateRunDetail; target: UpdateTargetSummary }) {
  const result = useQuery({
    queryKey: resultKey(run.id, target.asset_id),
    queryFn: async () =>
      (await hub.call('updates.runs.result', { params: { id: run.id, asset_id: target.asset_id } })).data,
    staleTime: Infinity,
  });
  if (result.isPending) return <Loading label="Loading the result" />;
  if (result.isError) return <ErrorNotice error={result.error} retry={() => void result.refetch()} />;
  const r = result.data;
  const dry = r.mode === 'dry_run';
  return (
    <>
      <RowsTable
        label={`${dry ? 'Planned changes' : 'Changes'} on ${target.asset_name}`}
        rows={r.change_list}
        columns={changeColumns}
        rowKey={(c, index) => `${c.name}:${String(index)}`}
        filterText={r.change_list.length > 20 ? (c) => c.name : undefined}
        emptyTitle={dry ? 'Nothing to change' : 'Nothing changed'}
      />
      {r.changes_truncated && <p className="chip truncated">more changes than the hub keeps</p>}
      {r.output !== '' && (
        <div className="output">
          <h4>Output of {r.manager ?? 'the package manager'}</h4>
          <pre className="mono" aria-label={`Output on ${target.asset_name}`}>
            {r.output}
          </pre>
          {r.output_truncated && <p className="chip truncated">only the end of the output is kept</p>}
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
          <span className="result-name">{target.asset_name}</span>
          <span className="result-status">{target.status === 'running' ? 'running…' : target.status}</span>
          {finished && (
            <span className="result-exit">
              {target.changes} {run.mode === 'dry_run' ? 'planned' : 'changed'}
            </span>
          )}
          {target.exit_code !== null && <span className="result-exit">exit code {target.exit_code}</span>}
          {target.duration_ms !== null && (
            <span className="result-duration">{formatDuration(target.duration_ms)}</span>
          )}
          {target.timed_out && <span className="chip truncated">timed out</span>}
          {target.reboot_required && <span className="chip">reboot required</span>}
          {target.rebooting && <span className="chip">rebooting</span>}
        </summary>
        <p className="small">
          <Link to={`/assets/${encodeURIComponent(target.asset_id)}/updates`}>
            Updates of {target.asset_name}
          </Link>
        </p>
        {target.error && <p className="result-error">{target.error}</p>}
        {open && finished && <TargetResult run={run} target={target} />}
        {!finished && !target.error && (
          <p className="muted small">
            {target.status === 'pending' || target.status === 'running'
              ? 'Waiting for the agent…'
              : 'Not run.'}
          </p>
        )}
      </details>
    </li>
  );
}

function Facts({ run }: { run: UpdateRunDetail }) {
  return (
    <dl className="facts" aria-label="The run">
      <div>
        <dt>Status</dt>
        <dd data-testid="update-run-status">
          {run.status}
          {run.status_reason && ` (${run.status_reason})`}
        </dd>
      </div>
      <div>
        <dt>Results</dt>
        <dd>{countsText(run.counts)}</dd>
      </div>
      <div>
        <dt>Updates</dt>
        <dd>
          {selectionText[run.selection]}
          {run.packages.length > 0 && `: ${run.packages.join(', ')}`}
        </dd>
      </div>
      <div>
        <dt>At a time</dt>
        <dd>
          {run.concurrency}
          {run.max_failures !== null && `, stops after ${String(run.max_failures)} failure(s)`}
        </dd>
      </div>
      {run.mode === 'apply' && (
        <div>
          <dt>Reboot if required</dt>
          <dd>{run.reboot_if_required ? 'yes' : 'no'}</dd>
        </div>
      )}
      <div>
        <dt>{run.start === 'next_window' ? 'In the maintenance window from' : 'Starts'}</dt>
        <dd>
          <Time value={run.started_at ?? run.scheduled_at ?? run.created_at} />
          {run.window_ends_at && (
            <>
              {' '}
              until <Time value={run.window_ends_at} />
            </>
          )}
        </dd>
      </div>
      <div>
        <dt>Finished</dt>
        <dd>
          <Time value={run.finished_at} />
        </dd>
      </div>
      <div>
        <dt>By</dt>
        <dd>{run.created_by}</dd>
      </div>
    </dl>
  );
}

export function UpdateRunPage() {
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
  if (run.isPending) return <Loading label="Loading the update run" />;
  if (run.isError) return <ErrorNotice error={run.error} retry={() => void run.refetch()} />;
  const r = run.data;
  const title = `${modeText[r.mode]} of ${selectionText[r.selection]}`;
  return (
    <section className="page" aria-labelledby="update-run-title">
      <p className="breadcrumbs">
        <Link to="/updates">Updates</Link> / <Link to="/updates/runs">Runs</Link> /
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
            Cancel run
          </button>
        )}
      </div>
      <Facts run={r} />
      <div className="run-results">
        <h2>Targets</h2>
        {r.results.length === 0 ? (
          <p className="muted">
            {r.status === 'scheduled' ? 'The targets are resolved when the run starts.' : 'No targets.'}
          </p>
        ) : (
          <ul className="results-list" aria-label="Targets">
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
        title={() => 'Cancel this update run?'}
        confirmLabel="Cancel run"
        mutation={cancel}
        onClose={() => {
          setCancelling(null);
        }}
      >
        {() => (
          <p>
            No new machine starts; those not started yet are cancelled. A package manager already working
            finishes, and its result is kept.
          </p>
        )}
      </ConfirmMutationDialog>
    </section>
  );
}
