/**
 * Connectors (admin): each with its kind, URL, certificate check (insecure flagged), health and last error;
 * add, edit, check now, remove after a confirmation.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Connector, ConnectorCheck } from '@svc/protocol';
import { hub } from '../../api/client';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatTime } from '../../components/units';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';
import { ConnectorFormDialog, connectorsKey, kindLabels, tlsLabels } from './ConnectorFormDialog';
import './connectors.css';

export function HealthBadge({ health }: { health: Connector['health'] }) {
  return <span className={`health health-${health}`}>{health}</span>;
}

function CheckButton({ connector }: { connector: Connector }) {
  const [result, setResult] = useState<ConnectorCheck | null>(null);
  const check = useResourceMutation({
    mutationFn: async () => (await hub.call('connectors.test', { params: { id: connector.id } })).data,
    invalidates: [connectorsKey],
    onSuccess: setResult,
  });
  return (
    <>
      <button
        type="button"
        disabled={check.isPending}
        aria-label={`Check ${connector.name} now`}
        onClick={() => {
          check.mutate();
        }}
      >
        {check.isPending ? 'Checking…' : 'Check now'}
      </button>
      {result && (
        <span role="status" className={result.health === 'ok' ? 'muted' : 'field-error'}>
          {result.health === 'ok'
            ? `OK, ${String(result.assets ?? 0)} assets`
            : `Failed: ${result.error ?? ''}`}
        </span>
      )}
      {check.isError && <ErrorNotice error={check.error} />}
    </>
  );
}

export function ConnectorsPage() {
  const [editing, setEditing] = useState<Connector | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Connector | null>(null);
  const connectors = useQuery({
    queryKey: connectorsKey,
    queryFn: async () => (await hub.call('connectors.list', { query: { per_page: 500 } })).data,
    refetchInterval: 10_000,
  });
  const remove = useResourceMutation({
    mutationFn: async (connector: Connector) =>
      (await hub.call('connectors.delete', { params: { id: connector.id } })).data,
    invalidates: [connectorsKey],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  return (
    <section className="page" aria-labelledby="connectors-title">
      <PageHeader
        titleId="connectors-title"
        title="Connectors"
        count={connectors.isSuccess ? { n: connectors.data.length, noun: 'connector' } : undefined}
        action={{
          label: 'New connector',
          onClick: () => {
            setEditing('new');
          },
        }}
      />
      <QueryStates
        query={connectors}
        loadingLabel="Loading connectors"
        empty={
          <EmptyState title="No connectors yet">
            <p>
              A connector lets the hub read and drive Proxmox VE, Proxmox Backup Server and other control
              planes.
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label="Connectors">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Kind</th>
                  <th scope="col">URL</th>
                  <th scope="col">Certificate</th>
                  <th scope="col">Health</th>
                  <th scope="col">Assets</th>
                  <th scope="col">Last error</th>
                  <th scope="col">Last checked</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id} data-connector-id={c.id}>
                    <th scope="row">
                      {c.name}
                      {!c.enabled && <span className="muted"> (disabled)</span>}
                    </th>
                    <td>{kindLabels[c.kind]}</td>
                    <td className="cell-wide">{c.base_url}</td>
                    <td>
                      {c.insecure ? (
                        <span
                          className="tls-insecure-badge"
                          title="The upstream's certificate is not checked"
                        >
                          Insecure: not verified
                        </span>
                      ) : (
                        tlsLabels[c.tls_mode]
                      )}
                    </td>
                    <td>
                      <HealthBadge health={c.health} />
                    </td>
                    <td className="cell-number">{c.asset_count}</td>
                    <td className="cell-wide">
                      {c.last_error ? (
                        <span className="field-error">{c.last_error}</span>
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>{c.last_checked_at ? formatTime(c.last_checked_at) : '—'}</td>
                    <td>
                      <div className="row-actions">
                        <CheckButton connector={c} />
                        <EditDeleteButtons
                          name={c.name}
                          onEdit={() => {
                            setEditing(c);
                          }}
                          onDelete={() => {
                            setDeleting(c);
                          }}
                          deleteWord="remove"
                        />
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {editing !== null && (
        <ConnectorFormDialog
          connector={editing === 'new' ? null : editing}
          onClose={() => {
            setEditing(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => `Remove ${record.name}?`}
        confirmLabel="Remove connector"
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {(record) => <p>The {String(record.asset_count)} assets it brought are removed with it.</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
