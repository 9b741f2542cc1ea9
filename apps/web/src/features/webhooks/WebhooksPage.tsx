/**
 * Webhooks: each with its URL, events, delivery counters and last error; create (the secret shown once),
 * edit, send a test event, delete with a confirmation.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Webhook, WebhookCreated, WebhookTestResult } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { CopyButton } from '../../components/CopyButton';
import { Dialog } from '../../components/Dialog';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { formatTime } from '../../components/units';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';
import { WebhookFormDialog, webhooksKey } from './WebhookFormDialog';
import './webhooks.css';

function TestButton({ webhook }: { webhook: Webhook }) {
  const [result, setResult] = useState<WebhookTestResult | null>(null);
  const test = useResourceMutation({
    mutationFn: async () => (await hub.call('webhooks.test', { params: { id: webhook.id } })).data,
    invalidates: [webhooksKey],
    onSuccess: setResult,
  });
  return (
    <>
      <button
        type="button"
        disabled={test.isPending}
        aria-label={`Send a test event to ${webhook.name}`}
        onClick={() => {
          test.mutate();
        }}
      >
        {test.isPending ? 'Sending…' : 'Send test'}
      </button>
      {result && (
        <span role="status" className={result.outcome === 'delivered' ? 'muted' : 'field-error'}>
          {result.outcome === 'delivered'
            ? `Delivered (${String(result.http_status)})`
            : `Test ${result.outcome}: ${result.error ?? ''}`}
        </span>
      )}
      {test.isError && <ErrorNotice error={test.error} />}
    </>
  );
}

function Counters({ webhook }: { webhook: Webhook }) {
  const d = webhook.deliveries;
  return (
    <>
      <td className="cell-number">{d.delivered}</td>
      <td className="cell-number">{d.failed_attempts}</td>
      <td className="cell-number">{d.dropped}</td>
      <td className="cell-wide">
        {d.last_error ? (
          <span className="field-error" title={d.last_error_at ?? undefined}>
            {d.last_error}
          </span>
        ) : (
          <span className="muted">—</span>
        )}
      </td>
    </>
  );
}

export function WebhooksPage() {
  const { canMutate } = useSession();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [created, setCreated] = useState<WebhookCreated | null>(null);
  const webhooks = useQuery({
    queryKey: webhooksKey,
    queryFn: async () => (await hub.call('webhooks.list', { query: { per_page: 500 } })).data,
    refetchInterval: 5_000,
  });
  const remove = useResourceMutation({
    mutationFn: async (record: Webhook) =>
      (await hub.call('webhooks.delete', { params: { id: record.id } })).data,
    invalidates: [webhooksKey],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  return (
    <section className="page" aria-labelledby="webhooks-title">
      <PageHeader
        titleId="webhooks-title"
        title="Webhooks"
        count={webhooks.isSuccess ? { n: webhooks.data.length, noun: 'webhook' } : undefined}
        action={
          canMutate && {
            label: 'New webhook',
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <QueryStates
        query={webhooks}
        loadingLabel="Loading webhooks"
        empty={
          <EmptyState title="No webhooks yet">
            <p>A webhook sends the fleet&apos;s events to a URL as they happen, signed with its secret.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label="Webhooks">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Delivered</th>
                  <th scope="col">Failed attempts</th>
                  <th scope="col">Dropped</th>
                  <th scope="col">Last error</th>
                  <th scope="col">Last delivery</th>
                  {canMutate && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((w) => (
                  <tr key={w.id} data-webhook-id={w.id}>
                    <th scope="row">
                      {w.name}
                      {!w.enabled && <span className="muted"> (disabled)</span>}
                    </th>
                    <td className="cell-wide">{w.url}</td>
                    <td>{w.events.length === 0 ? 'all' : w.events.join(', ')}</td>
                    <Counters webhook={w} />
                    <td>
                      {w.deliveries.last_delivered_at ? formatTime(w.deliveries.last_delivered_at) : '—'}
                    </td>
                    {canMutate && (
                      <td>
                        <div className="row-actions">
                          <TestButton webhook={w} />
                          <EditDeleteButtons
                            name={w.name}
                            onEdit={() => {
                              setEditing(w);
                            }}
                            onDelete={() => {
                              setDeleting(w);
                            }}
                          />
                        </div>
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </QueryStates>
      {(creating || editing) && (
        <WebhookFormDialog
          webhook={editing}
          onClose={() => {
            setCreating(false);
            setEditing(null);
          }}
          onCreated={setCreated}
        />
      )}
      {created && (
        <Dialog
          open
          title={`Secret of ${created.name}`}
          onClose={() => {
            setCreated(null);
          }}
        >
          <p>Shown this once: the receiver checks each delivery&apos;s signature with it.</p>
          <p>
            <code aria-label="Webhook secret">{created.secret}</code>{' '}
            <CopyButton text={created.secret} label="Copy the secret" />
          </p>
          <div className="dialog-actions">
            <button
              type="button"
              className="primary"
              onClick={() => {
                setCreated(null);
              }}
            >
              Done
            </button>
          </div>
        </Dialog>
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => `Delete the webhook ${record.name}?`}
        confirmLabel="Delete webhook"
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>Deliveries to it stop, and those still queued are dropped.</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
