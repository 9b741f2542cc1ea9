/**
 * Notification channels (admin): where alerts go, with each channel's routing (lowest severity, quiet hours,
 * digest window) and counters; add one, edit one (its settings and routing), send a test, delete after a
 * confirmation.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import {
  notificationChannelKinds,
  notificationSeverities,
  type NotificationChannel,
  type NotificationChannelCreate,
  type NotificationChannelSettings,
  type NotificationChannelUpdate,
  type NotificationTestResult,
  type QuietHours,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { EditDeleteButtons } from '../../components/EditDeleteButtons';
import { EmptyState } from '../../components/EmptyState';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { QueryStates } from '../../components/QueryStates';
import { PageHeader } from '../../components/PageHeader';
import { useT } from '../../i18n/I18nProvider';
import '../webhooks/webhooks.css';

const channelsKey = ['notification-channels'] as const;

type Kind = (typeof notificationChannelKinds)[number];
type Severity = (typeof notificationSeverities)[number];

/** The SMTP fields this form does not show (port, security, user) are kept as they are on an edit. */
function keptSmtp(channel: NotificationChannel | undefined): NotificationChannelSettings {
  const s = channel?.settings;
  return {
    ...(s?.smtp_port != null ? { smtp_port: s.smtp_port } : {}),
    ...(s?.smtp_security === 'tls' || s?.smtp_security === 'starttls' || s?.smtp_security === 'none'
      ? { smtp_security: s.smtp_security }
      : {}),
    ...(s?.smtp_username != null ? { smtp_username: s.smtp_username } : {}),
  };
}

/** New channel, or (with `channel`) the edit of one: its kind stays, everything else may change. */
function ChannelDialog({ channel, onClose }: { channel?: NotificationChannel; onClose: () => void }) {
  const { t } = useT();
  const [name, setName] = useState(channel?.name ?? '');
  const [kind, setKind] = useState<Kind>(channel?.kind ?? 'ntfy');
  const [enabled, setEnabled] = useState(channel?.enabled ?? true);
  const [url, setUrl] = useState(channel?.settings.url ?? '');
  const [smtpHost, setSmtpHost] = useState(channel?.settings.smtp_host ?? '');
  const [from, setFrom] = useState(channel?.settings.from ?? '');
  const [to, setTo] = useState(channel?.settings.to.join(', ') ?? '');
  const [minSeverity, setMinSeverity] = useState<Severity>(channel?.min_severity ?? 'warning');
  const [digest, setDigest] = useState(String(channel?.digest_window_s ?? 0));
  const [quietStart, setQuietStart] = useState(channel?.quiet_hours?.start ?? '');
  const [quietEnd, setQuietEnd] = useState(channel?.quiet_hours?.end ?? '');
  const [quietZone, setQuietZone] = useState(channel?.quiet_hours?.time_zone ?? '');
  const save = useResourceMutation({
    mutationFn: async () => {
      const settings: NotificationChannelSettings =
        kind === 'email'
          ? {
              ...keptSmtp(channel),
              smtp_host: smtpHost.trim(),
              from: from.trim(),
              to: to
                .split(',')
                .map((s) => s.trim())
                .filter(Boolean),
            }
          : { url: url.trim() };
      // Both times empty: no quiet hours.
      const quietHours: QuietHours | null =
        quietStart === '' && quietEnd === ''
          ? null
          : {
              start: quietStart,
              end: quietEnd,
              ...(quietZone.trim() !== '' ? { time_zone: quietZone.trim() } : {}),
            };
      const routing = {
        name: name.trim(),
        enabled,
        settings,
        min_severity: minSeverity,
        quiet_hours: quietHours,
        digest_window_s: Number(digest) || 0,
      };
      if (channel) {
        const body: NotificationChannelUpdate = routing;
        return (await hub.call('notifications.update', { params: { id: channel.id }, body })).data;
      }
      const body: NotificationChannelCreate = { ...routing, kind };
      return (await hub.call('notifications.create', { body })).data;
    },
    invalidates: [channelsKey],
    onSuccess: onClose,
  });
  const { problems } = save;
  return (
    <FormDialog
      title={channel ? t('common.editNamed', { name: channel.name }) : t('notifications.new')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={channel ? t('notifications.save') : t('notifications.create')}
    >
      <TextField
        label={t('notifications.name')}
        problem={problems.name}
        value={name}
        autoFocus
        onChange={setName}
      />
      <FormField label={t('notifications.kind')} problem={problems.kind}>
        {(props) => (
          <select
            {...props}
            value={kind}
            disabled={channel !== undefined}
            onChange={(e) => {
              setKind(e.target.value as Kind);
            }}
          >
            {notificationChannelKinds.map((k) => (
              <option key={k} value={k}>
                {t('notifications.kindName', { kind: k })}
              </option>
            ))}
          </select>
        )}
      </FormField>
      {kind === 'email' ? (
        <>
          <TextField
            label={t('notifications.smtpHost')}
            problem={problems.settings}
            value={smtpHost}
            onChange={setSmtpHost}
          />
          <TextField label={t('notifications.from')} problem={undefined} value={from} onChange={setFrom} />
          <TextField label={t('notifications.to')} problem={undefined} value={to} onChange={setTo} />
        </>
      ) : (
        <TextField
          label={t('notifications.url')}
          problem={problems.settings}
          type="url"
          value={url}
          onChange={setUrl}
        />
      )}
      <FormField label={t('notifications.minSeverity')} problem={problems.min_severity}>
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
                {t('alert.severity', { severity: s })}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <TextField
        label={t('notifications.digestWindow')}
        problem={problems.digest_window_s}
        type="number"
        min={0}
        max={3600}
        value={digest}
        onChange={setDigest}
      />
      <fieldset className="quiet-hours">
        <legend>{t('notifications.quietLegend')}</legend>
        <TextField
          label={t('notifications.quietFrom')}
          problem={problems.quiet_hours}
          type="time"
          value={quietStart}
          onChange={setQuietStart}
        />
        <TextField
          label={t('notifications.quietUntil')}
          problem={undefined}
          type="time"
          value={quietEnd}
          onChange={setQuietEnd}
        />
        <TextField
          label={t('notifications.quietZone')}
          problem={undefined}
          placeholder={t('notifications.zonePlaceholder')}
          value={quietZone}
          onChange={setQuietZone}
        />
      </fieldset>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={enabled}
          onChange={(e) => {
            setEnabled(e.target.checked);
          }}
        />{' '}
        {t('notifications.enabled')}
      </label>
    </FormDialog>
  );
}

function TestChannel({ channel }: { channel: NotificationChannel }) {
  const { t } = useT();
  const [result, setResult] = useState<NotificationTestResult | null>(null);
  const test = useResourceMutation({
    mutationFn: async () => (await hub.call('notifications.test', { params: { id: channel.id } })).data,
    invalidates: [channelsKey],
    onSuccess: setResult,
  });
  return (
    <>
      <button
        type="button"
        aria-label={t('notifications.sendTestTo', { name: channel.name })}
        disabled={test.isPending}
        onClick={() => {
          test.mutate();
        }}
      >
        {t('notifications.sendTest')}
      </button>
      {result && (
        <span role="status" className={result.sent ? 'muted' : 'field-error'}>
          {result.sent ? (
            t('notifications.sent')
          ) : (
            <>
              {t('notifications.notSent')} <span translate="no">{result.error ?? ''}</span>
            </>
          )}
        </span>
      )}
    </>
  );
}

export function NotificationsPage() {
  const { t } = useT();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<NotificationChannel | null>(null);
  const [deleting, setDeleting] = useState<NotificationChannel | null>(null);
  const channels = useQuery({
    queryKey: channelsKey,
    queryFn: async () => (await hub.call('notifications.list', { query: { per_page: 500 } })).data,
  });
  const remove = useResourceMutation({
    mutationFn: async (record: NotificationChannel) =>
      (await hub.call('notifications.delete', { params: { id: record.id } })).data,
    invalidates: [channelsKey],
    onSuccess: () => {
      setDeleting(null);
    },
  });
  return (
    <section className="page" aria-labelledby="notifications-title">
      <PageHeader
        titleId="notifications-title"
        title={t('notifications.title')}
        action={{
          label: t('notifications.new'),
          onClick: () => {
            setCreating(true);
          },
        }}
      />
      <QueryStates
        query={channels}
        loadingLabel={t('notifications.loading')}
        empty={
          <EmptyState title={t('notifications.none')}>
            <p>{t('notifications.noneText')}</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('notifications.channels')}>
              <thead>
                <tr>
                  <th scope="col">{t('notifications.name')}</th>
                  <th scope="col">{t('notifications.kind')}</th>
                  <th scope="col">{t('notifications.sendsTo')}</th>
                  <th scope="col">{t('notifications.minSeverity')}</th>
                  <th scope="col">{t('notifications.quietHours')}</th>
                  <th scope="col">{t('notifications.digest')}</th>
                  <th scope="col">{t('notifications.sent')}</th>
                  <th scope="col">{t('notifications.failed')}</th>
                  <th scope="col">{t('notifications.suppressed')}</th>
                  <th scope="col">{t('notifications.lastError')}</th>
                  <th scope="col">{t('common.actions')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id}>
                    <th scope="row" translate="no">
                      {c.name}
                    </th>
                    <td>{t('notifications.kindName', { kind: c.kind })}</td>
                    <td className="cell-wide" translate="no">
                      {c.kind === 'email' ? c.settings.to.join(', ') : c.settings.url}
                    </td>
                    <td>{t('alert.severity', { severity: c.min_severity })}</td>
                    <td translate="no">
                      {c.quiet_hours
                        ? `${c.quiet_hours.start}–${c.quiet_hours.end}${c.quiet_hours.time_zone ? ` ${c.quiet_hours.time_zone}` : ''}`
                        : '—'}
                    </td>
                    <td>
                      {c.digest_window_s > 0
                        ? t('notifications.digestSeconds', { n: c.digest_window_s })
                        : t('notifications.noDigest')}
                    </td>
                    <td className="cell-number">{c.stats.sent}</td>
                    <td className="cell-number">{c.stats.failed}</td>
                    <td className="cell-number">{c.stats.suppressed}</td>
                    <td translate="no">{c.stats.last_error ?? '—'}</td>
                    <td>
                      <div className="row-actions">
                        <TestChannel channel={c} />
                        <EditDeleteButtons
                          name={c.name}
                          onEdit={() => {
                            setEditing(c);
                          }}
                          onDelete={() => {
                            setDeleting(c);
                          }}
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
      {creating && (
        <ChannelDialog
          onClose={() => {
            setCreating(false);
          }}
        />
      )}
      {editing && (
        <ChannelDialog
          channel={editing}
          onClose={() => {
            setEditing(null);
          }}
        />
      )}
      <ConfirmMutationDialog
        record={deleting}
        title={(record) => t('notifications.deleteTitle', { name: record.name })}
        confirmLabel={t('notifications.delete')}
        mutation={remove}
        onClose={() => {
          setDeleting(null);
        }}
      >
        {() => <p>{t('notifications.deleteText')}</p>}
      </ConfirmMutationDialog>
    </section>
  );
}
