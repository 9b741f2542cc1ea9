/**
 * Notification channels (admin): where alerts go, with each channel's routing (lowest severity, quiet hours,
 * digest window) and counters; add one, send a test, delete after a confirmation.
 */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  notificationChannelKinds,
  notificationSeverities,
  type NotificationChannel,
  type NotificationChannelCreate,
  type NotificationTestResult,
} from '@svc/protocol';
import { fieldProblems, hub } from '../../api/client';
import { ConfirmDialog, Dialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FormField } from '../../components/FormField';
import { Loading } from '../../components/Loading';
import '../webhooks/webhooks.css';

const channelsKey = ['notification-channels'] as const;

type Kind = (typeof notificationChannelKinds)[number];
type Severity = (typeof notificationSeverities)[number];

function ChannelDialog({ onClose }: { onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('ntfy');
  const [url, setUrl] = useState('');
  const [smtpHost, setSmtpHost] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [minSeverity, setMinSeverity] = useState<Severity>('warning');
  const [digest, setDigest] = useState('0');
  const save = useMutation({
    mutationFn: async () => {
      const body: NotificationChannelCreate = {
        name: name.trim(),
        kind,
        settings:
          kind === 'email'
            ? {
                smtp_host: smtpHost.trim(),
                from: from.trim(),
                to: to
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
              }
            : { url: url.trim() },
        min_severity: minSeverity,
        digest_window_s: Number(digest) || 0,
      };
      return (await hub.call('notifications.create', { body })).data;
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: channelsKey });
      onClose();
    },
  });
  const problems = fieldProblems(save.error);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    save.mutate();
  };
  return (
    <Dialog open title="New channel" onClose={onClose}>
      <form className="asset-form" onSubmit={submit} noValidate>
        <FormField label="Name" problem={problems.name}>
          {(props) => (
            <input
              {...props}
              value={name}
              autoFocus
              onChange={(e) => {
                setName(e.target.value);
              }}
            />
          )}
        </FormField>
        <FormField label="Kind" problem={problems.kind}>
          {(props) => (
            <select
              {...props}
              value={kind}
              onChange={(e) => {
                setKind(e.target.value as Kind);
              }}
            >
              {notificationChannelKinds.map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          )}
        </FormField>
        {kind === 'email' ? (
          <>
            <FormField label="SMTP host" problem={problems.settings}>
              {(props) => (
                <input
                  {...props}
                  value={smtpHost}
                  onChange={(e) => {
                    setSmtpHost(e.target.value);
                  }}
                />
              )}
            </FormField>
            <FormField label="From" problem={undefined}>
              {(props) => (
                <input
                  {...props}
                  value={from}
                  onChange={(e) => {
                    setFrom(e.target.value);
                  }}
                />
              )}
            </FormField>
            <FormField label="To (comma-separated)" problem={undefined}>
              {(props) => (
                <input
                  {...props}
                  value={to}
                  onChange={(e) => {
                    setTo(e.target.value);
                  }}
                />
              )}
            </FormField>
          </>
        ) : (
          <FormField label="URL" problem={problems.settings}>
            {(props) => (
              <input
                {...props}
                type="url"
                value={url}
                onChange={(e) => {
                  setUrl(e.target.value);
                }}
              />
            )}
          </FormField>
        )}
        <FormField label="Lowest severity" problem={problems.min_severity}>
          {(props) => (
            <select
              {...props}
              value={minSeverity}
              onChange={(e) => {
                setMinSeverity(e.target.value as Severity);
              }}
            >
              {notificationSeverities.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          )}
        </FormField>
        <FormField label="Digest window (seconds)" problem={problems.digest_window_s}>
          {(props) => (
            <input
              {...props}
              type="number"
              min={0}
              max={3600}
              value={digest}
              onChange={(e) => {
                setDigest(e.target.value);
              }}
            />
          )}
        </FormField>
        {save.isError && <ErrorNotice error={save.error} />}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : 'Create channel'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function TestChannel({ channel }: { channel: NotificationChannel }) {
  const client = useQueryClient();
  const [result, setResult] = useState<NotificationTestResult | null>(null);
  const test = useMutation({
    mutationFn: async () => (await hub.call('notifications.test', { params: { id: channel.id } })).data,
    onSuccess: async (answer) => {
      setResult(answer);
      await client.invalidateQueries({ queryKey: channelsKey });
    },
  });
  return (
    <>
      <button
        type="button"
        aria-label={`Send a test notification to ${channel.name}`}
        disabled={test.isPending}
        onClick={() => {
          test.mutate();
        }}
      >
        Send test
      </button>
      {result && (
        <span role="status" className={result.sent ? 'muted' : 'field-error'}>
          {result.sent ? 'Sent' : `Not sent: ${result.error ?? ''}`}
        </span>
      )}
    </>
  );
}

export function NotificationsPage() {
  const client = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<NotificationChannel | null>(null);
  const channels = useQuery({
    queryKey: channelsKey,
    queryFn: async () => (await hub.call('notifications.list', { query: { per_page: 500 } })).data,
  });
  const remove = useMutation({
    mutationFn: async (id: string) => (await hub.call('notifications.delete', { params: { id } })).data,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: channelsKey });
      setDeleting(null);
    },
  });
  return (
    <section className="page" aria-labelledby="notifications-title">
      <div className="page-header">
        <h1 id="notifications-title">Notifications</h1>
        <button
          type="button"
          className="primary"
          onClick={() => {
            setCreating(true);
          }}
        >
          New channel
        </button>
      </div>
      {channels.isPending && <Loading label="Loading channels" />}
      {channels.isError && <ErrorNotice error={channels.error} retry={() => void channels.refetch()} />}
      {channels.isSuccess && channels.data.length === 0 && (
        <EmptyState title="No channels yet">
          <p>A channel sends alerts by email, ntfy, Slack, Discord or a webhook.</p>
        </EmptyState>
      )}
      {channels.isSuccess && channels.data.length > 0 && (
        <div className="rows-scroll">
          <table className="data-table" aria-label="Notification channels">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Sends to</th>
                <th scope="col">Lowest severity</th>
                <th scope="col">Quiet hours</th>
                <th scope="col">Digest</th>
                <th scope="col">Sent</th>
                <th scope="col">Failed</th>
                <th scope="col">Suppressed</th>
                <th scope="col">Last error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {channels.data.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.name}</th>
                  <td>{c.kind}</td>
                  <td className="cell-wide">
                    {c.kind === 'email' ? c.settings.to.join(', ') : c.settings.url}
                  </td>
                  <td>{c.min_severity}</td>
                  <td>{c.quiet_hours ? `${c.quiet_hours.start}–${c.quiet_hours.end}` : '—'}</td>
                  <td>{c.digest_window_s > 0 ? `${String(c.digest_window_s)} s` : 'none'}</td>
                  <td className="cell-number">{c.stats.sent}</td>
                  <td className="cell-number">{c.stats.failed}</td>
                  <td className="cell-number">{c.stats.suppressed}</td>
                  <td>{c.stats.last_error ?? '—'}</td>
                  <td>
                    <div className="row-actions">
                      <TestChannel channel={c} />
                      <button
                        type="button"
                        className="danger"
                        aria-label={`Delete ${c.name}`}
                        onClick={() => {
                          setDeleting(c);
                        }}
                      >
                        Delete
                      </button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && (
        <ChannelDialog
          onClose={() => {
            setCreating(false);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the channel ${deleting?.name ?? ''}?`}
        confirmLabel="Delete channel"
        busy={remove.isPending}
        onConfirm={() => {
          if (deleting) remove.mutate(deleting.id);
        }}
        onClose={() => {
          setDeleting(null);
          remove.reset();
        }}
      >
        <p>Alerts stop going to it.</p>
        {remove.isError && <ErrorNotice error={remove.error} />}
      </ConfirmDialog>
    </section>
  );
}
