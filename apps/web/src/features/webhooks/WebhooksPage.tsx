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
import { useT } from '../../i18n/I18nProvider';
import { WebhookFormDialog, webhooksKey } from './WebhookFormDialog';
import './webhooks.css';

function TestButton({ webhook }: { webhook: Webhook }) {
  const { t } = useT();
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
        aria-label={t('webhooks.sendTestTo', { name: webhook.name })}
        onClick={() => {
          test.mutate();
        }}
      >
        {test.isPending ? t('webhooks.sending') : t('webhooks.sendTest')}
      </button>
      {result && (
        <span role="status" className={result.outcome === 'delivered' ? 'muted' : 'field-error'}>
          {result.outcome === 'delivered' ? (
            t('webhooks.testDelivered', { status: String(result.http_status) })
          ) : (
            <>
              {t('webhooks.testOutcome', { outcome: result.outcome })}{' '}
              <span translate="no">{result.error ?? ''}</span>
            </>
          )}
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
          <span className="field-error" title={d.last_error_at ?? undefined} translate="no">
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
  const { t } = useT();
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
        title={t('webhooks.title')}
        count={webhooks.isSuccess ? t('webhooks.count', { n: webhooks.data.length }) : undefined}
        action={
          canMutate && {
            label: t('webhooks.new'),
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <QueryStates
        query={webhooks}
        loadingLabel={t('webhooks.loading')}
        empty={
          <EmptyState title={t('webhooks.none')}>
            <p>{t('webhooks.noneText')}</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('webhooks.title')}>
              <thead>
                <tr>
                  <th scope="col">{t('webhooks.name')}</th>
                  <th scope="col">{t('webhooks.url')}</th>
                  <th scope="col">{t('webhooks.events')}</th>
                  <th scope="col">{t('webhooks.delivered')}</th>
                  <th scope="col">{t('webhooks.failedAttempts')}</th>
                  <th scope="col">{t('webhooks.dropped')}</th>
                  <th scope="col">{t('webhooks.lastError')}</th>
                  <th scope="col">{t('webhooks.lastDelivery')}</th>
                  {canMutate && <th scope="col">{t('common.actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((w) => (
                  <tr key={w.id} data-webhook-id={w.id}>
                    <th scope="row">
                      <span translate="no">{w.name}</span>
                      {!w.enabled && <span className="muted"> {t('webhooks.disabled')}</span>}
                    </th>
                    <td className="cell-wide" translate="no">
                      {w.url}
                    </td>
                    {w.events.length === 0 ? (
                      <td>{t('webhooks.allEvents')}</td>
                    ) : (
                      <td translate="no">{w.events.join(', ')}</td>
                    )}
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
          title={t('webhooks.secretOf', { name: created.name })}
          onClose={() => {
            setCreated(null);
          }}
        >
          <p>{t('webhooks.secretOnce')}</p>
          <p>
            <code aria-label={t('webhooks.secret')}>{created.secret}</code>{' '}
            <CopyButton text={created.secret} label={t('webhooks.copySecret')} />
          </p>
          <div className="dialog-actions">
            <button
              type="button"
              className="primary"
              onClick={() => {
                setCreated(null);
              }}
            >
              {t('webhooks.done')}
            </button>
          </div>
        </Dialog>
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => t('webhooks.deleteTitle', { name: record.name })}
        confirmLabel={t('webhooks.delete')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>{t('webhooks.deleteText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
