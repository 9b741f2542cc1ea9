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
import { formatPercent, formatTime } from '../../components/units';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { CheckFormDialog, checksKey } from './CheckFormDialog';
import { RunFromName } from './RunFrom';

const uptime = (share: number | null) => (share === null ? '—' : formatPercent(share * 100));

function StatusCell({ check }: { check: ServiceCheck }) {
  if (!check.enabled) return <span className="muted">paused</span>;
  if (check.status === 'unknown') {
    // Unknown after a run: its agent could not run it (decision 0084); the reason is the last error.
    return check.last_run_at === null ? (
      <span className="muted">not run yet</span>
    ) : (
      <span className="muted">unknown: {check.last_error ?? 'not run'}</span>
    );
  }
  return (
    <span className={check.status === 'up' ? undefined : 'field-error'} title={check.last_error ?? undefined}>
      {check.status === 'up' ? 'up' : `down (${String(check.consecutive_failures)})`}
    </span>
  );
}

function RunButton({ check }: { check: ServiceCheck }) {
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
        aria-label={`Run now: ${check.name}`}
        onClick={() => {
          run.mutate();
        }}
      >
        {run.isPending ? 'Running…' : 'Run now'}
      </button>
      {result && (
        <span role="status" className={result.ok ? 'muted' : 'field-error'}>
          {result.ok
            ? `Up${result.latency_ms === null ? '' : ` in ${String(result.latency_ms)} ms`}`
            : `${result.ran ? 'Down' : 'Unknown'}: ${result.error ?? ''}`}
        </span>
      )}
      {run.isError && <ErrorNotice error={run.error} />}
    </>
  );
}

function HistoryDialog({ check, onClose }: { check: ServiceCheck; onClose: () => void }) {
  const results = useQuery({
    queryKey: [...checksKey, check.id, 'results'],
    queryFn: async () =>
      (await hub.call('checks.results', { params: { id: check.id }, query: { per_page: 100 } })).data,
  });
  return (
    <Dialog open title={`History of ${check.name}`} onClose={onClose}>
      <QueryStates query={results} loadingLabel="Loading the history" empty={<p>No run yet.</p>}>
        {(rows) => (
          <div
            className="rows-scroll"
            tabIndex={0}
            role="region"
            aria-label={`Runs of ${check.name}, scrollable`}
          >
            <table className="data-table" aria-label={`Runs of ${check.name}`}>
              <thead>
                <tr>
                  <th scope="col">At</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Status code</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id}>
                    <td>{formatTime(r.at)}</td>
                    <td>{r.ran ? (r.ok ? 'up' : 'down') : 'not run'}</td>
                    <td className="cell-number">
                      {r.latency_ms === null ? '—' : `${String(r.latency_ms)} ms`}
                    </td>
                    <td className="cell-number">{r.status_code ?? '—'}</td>
                    <td className="cell-wide">{r.error ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      <div className="dialog-actions">
        <button type="button" className="primary" onClick={onClose}>
          Close
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
        loadingLabel="Loading service checks"
        empty={
          <EmptyState title="No service checks yet">
            <p>A check asks a service whether it answers: a URL, a TCP port or a ping, every so often.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label="Service checks">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Target</th>
                  <th scope="col">Runs from</th>
                  <th scope="col">Status</th>
                  <th scope="col">Uptime 24 h</th>
                  <th scope="col">Uptime 7 d</th>
                  <th scope="col">Latency</th>
                  <th scope="col">Certificate expires</th>
                  <th scope="col">Last run</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id} data-check-id={c.id}>
                    <th scope="row">{c.name}</th>
                    <td className="cell-wide">
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
                      {c.last_latency_ms === null ? '—' : `${String(c.last_latency_ms)} ms`}
                    </td>
                    <td className={c.cert_expiring ? 'field-error' : undefined}>
                      {formatTime(c.cert_expires_at)}
                      {c.cert_expiring && ' (soon)'}
                    </td>
                    <td>{formatTime(c.last_run_at)}</td>
                    <td>
                      <div className="row-actions">
                        <button
                          type="button"
                          aria-label={`History of ${c.name}`}
                          onClick={() => {
                            setHistory(c);
                          }}
                        >
                          History
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
        title={(record) => `Delete the check ${record.name}?`}
        confirmLabel="Delete check"
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>Its history goes with it.</p>}
      </ConfirmMutationDialog>
    </>
  );
}
