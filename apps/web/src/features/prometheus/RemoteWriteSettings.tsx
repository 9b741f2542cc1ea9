/**
 * Prometheus remote write (decision 0075): whether the hub keeps up sending its stored metrics, and the
 * receiver's configuration (URL, credentials written only, TLS, backlog bound). Admins only.
 */
import { useState } from 'react';
import {
  connectorTlsModes,
  prometheusLimits,
  remoteWriteAuthKinds,
  type ConnectorTlsMode,
  type PrometheusSettings,
  type RemoteWriteAuthKind,
  type RemoteWriteStatus,
  type RemoteWriteUpdate,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { FormField } from '../../components/FormField';
import { PanelForm } from '../../components/PanelForm';
import { TextField } from '../../components/TextField';
import { Time } from '../../components/Time';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
import { prometheusKey } from './prometheus-query';

function RemoteWriteStatusFacts({ status }: { status: RemoteWriteStatus | null }) {
  const { t } = useT();
  if (status === null) return <p className="muted">{t('prometheus.nothingSent')}</p>;
  return (
    <dl className="facts" aria-label={t('prometheus.rwStatus')}>
      <div>
        <dt>{t('prometheus.keepingUp')}</dt>
        <dd className={status.keeping_up ? 'state-ok' : 'state-bad'}>
          {t('prometheus.yesNo', { value: status.keeping_up ? 'yes' : 'no' })}
        </dd>
      </div>
      <div>
        <dt>{t('prometheus.backlog')}</dt>
        <dd>
          {t(status.backlog_capped ? 'prometheus.samplesCapped' : 'prometheus.samples', {
            n: status.backlog_samples,
          })}
        </dd>
      </div>
      <div>
        <dt>{t('prometheus.sent')}</dt>
        <dd>{t('prometheus.samples', { n: status.sent_samples })}</dd>
      </div>
      <div>
        <dt>{t('prometheus.dropped')}</dt>
        <dd>{t('prometheus.samples', { n: status.dropped_samples })}</dd>
      </div>
      <div>
        <dt>{t('prometheus.lastSuccess')}</dt>
        <dd>
          <Time value={status.last_success_at} />
        </dd>
      </div>
      <div>
        <dt>{t('prometheus.lastError')}</dt>
        <dd>
          <span translate="no">{status.last_error ?? '—'}</span>
          {status.last_error_at && (
            <>
              {' ('}
              <Time value={status.last_error_at} />)
            </>
          )}
        </dd>
      </div>
    </dl>
  );
}

interface Draft {
  enabled: boolean;
  url: string;
  auth: RemoteWriteAuthKind;
  username: string;
  credentials: string;
  tlsMode: ConnectorTlsMode;
  tlsCa: string;
  tlsFingerprint: string;
  maxBacklog: string;
}

function draftOf(settings: PrometheusSettings): Draft {
  const rw = settings.remote_write;
  return {
    enabled: rw?.enabled ?? true,
    url: rw?.url ?? '',
    auth: rw?.auth ?? 'none',
    username: rw?.username ?? '',
    credentials: '',
    tlsMode: rw?.tls_mode ?? 'system',
    tlsCa: rw?.tls_ca ?? '',
    tlsFingerprint: rw?.tls_fingerprint ?? '',
    maxBacklog: String(rw?.max_backlog_samples ?? prometheusLimits.defaultMaxBacklogSamples),
  };
}

function bodyOf(draft: Draft): RemoteWriteUpdate {
  return {
    enabled: draft.enabled,
    url: draft.url.trim(),
    auth: draft.auth,
    ...(draft.auth === 'basic' ? { username: draft.username } : {}),
    ...(draft.auth !== 'none' && draft.credentials !== '' ? { credentials: draft.credentials } : {}),
    tls_mode: draft.tlsMode,
    ...(draft.tlsMode === 'pinned_ca' ? { tls_ca: draft.tlsCa } : {}),
    ...(draft.tlsMode === 'fingerprint' ? { tls_fingerprint: draft.tlsFingerprint } : {}),
    max_backlog_samples: Number(draft.maxBacklog),
  };
}

export function RemoteWriteSettings({ settings }: { settings: PrometheusSettings }) {
  const { rich, t } = useT();
  const [draft, setDraft] = useState<Draft>(() => draftOf(settings));
  const set = (changes: Partial<Draft>) => {
    setDraft((d) => ({ ...d, ...changes }));
  };
  const save = useResourceMutation({
    mutationFn: async (body: RemoteWriteUpdate) => (await hub.call('prometheus.remoteWrite', { body })).data,
    invalidates: [prometheusKey],
    onSuccess: () => {
      set({ credentials: '' });
    },
    notice: () => t('prometheus.rwSaved'),
  });
  const remove = useResourceMutation({
    mutationFn: async () => (await hub.call('prometheus.remoteWriteRemove', {})).data,
    invalidates: [prometheusKey],
    notice: () => t('prometheus.rwRemoved'),
  });
  const p = save.problems;
  const credentialsSet = settings.remote_write?.credentials_set === true;
  return (
    <section className="panel" aria-labelledby="prometheus-rw-title">
      <h2 id="prometheus-rw-title">{t('prometheus.remoteWrite')}</h2>
      <p>
        {rich('prometheus.remoteWriteText', {
          metrics: <code>svc_cpu_percent, svc_load1, …</code>,
          labels: <code>asset_id, name</code>,
        })}
      </p>
      {settings.remote_write !== null && <RemoteWriteStatusFacts status={settings.status} />}
      <PanelForm
        title={t(settings.remote_write === null ? 'prometheus.setUp' : 'prometheus.receiver')}
        mutation={save}
        onSubmit={() => {
          save.mutate(bodyOf(draft));
        }}
        submitLabel={t('prometheus.saveRw')}
        canSubmit={draft.url.trim() !== ''}
        beside={
          settings.remote_write !== null && (
            <button
              type="button"
              onClick={() => {
                remove.mutate();
              }}
              disabled={remove.isPending}
            >
              {t('prometheus.removeRw')}
            </button>
          )
        }
      >
        <label className="checkbox">
          <input
            type="checkbox"
            checked={draft.enabled}
            onChange={(e) => {
              set({ enabled: e.target.checked });
            }}
          />{' '}
          {t('prometheus.sendMetrics')}
        </label>
        <TextField
          label={t('prometheus.receiverUrl')}
          hint={t('prometheus.receiverUrlHint', { example: 'https://prometheus.lan:9090/api/v1/write' })}
          problem={p.url}
          value={draft.url}
          onChange={(url) => {
            set({ url });
          }}
        />
        <FormField label={t('prometheus.auth')} problem={p.auth}>
          {(props) => (
            <select
              {...props}
              value={draft.auth}
              onChange={(e) => {
                set({ auth: e.target.value as RemoteWriteAuthKind });
              }}
            >
              {remoteWriteAuthKinds.map((kind) => (
                <option key={kind} value={kind}>
                  {t('prometheus.authKind', { kind })}
                </option>
              ))}
            </select>
          )}
        </FormField>
        {draft.auth === 'basic' && (
          <TextField
            label={t('prometheus.username')}
            problem={p.username}
            value={draft.username}
            onChange={(username) => {
              set({ username });
            }}
          />
        )}
        {draft.auth !== 'none' && (
          <TextField
            label={t(draft.auth === 'bearer' ? 'prometheus.token' : 'prometheus.password')}
            type="password"
            autoComplete="off"
            hint={t(credentialsSet ? 'prometheus.credentialsKept' : 'prometheus.credentialsSealed')}
            problem={p.credentials}
            value={draft.credentials}
            onChange={(credentials) => {
              set({ credentials });
            }}
          />
        )}
        <FormField label={t('prometheus.tlsMode')} problem={p.tls_mode}>
          {(props) => (
            <select
              {...props}
              value={draft.tlsMode}
              onChange={(e) => {
                set({ tlsMode: e.target.value as ConnectorTlsMode });
              }}
            >
              {connectorTlsModes.map((mode) => (
                <option key={mode} value={mode}>
                  {t('prometheus.tlsModeValue', { mode })}
                </option>
              ))}
            </select>
          )}
        </FormField>
        {draft.tlsMode === 'pinned_ca' && (
          <TextField
            label={t('prometheus.caPem')}
            multiline
            rows={4}
            problem={p.tls_ca}
            value={draft.tlsCa}
            onChange={(tlsCa) => {
              set({ tlsCa });
            }}
          />
        )}
        {draft.tlsMode === 'fingerprint' && (
          <TextField
            label={t('prometheus.fingerprint')}
            problem={p.tls_fingerprint}
            value={draft.tlsFingerprint}
            onChange={(tlsFingerprint) => {
              set({ tlsFingerprint });
            }}
          />
        )}
        <TextField
          label={t('prometheus.backlogBound')}
          hint={t('prometheus.backlogBoundHint')}
          inputMode="numeric"
          problem={p.max_backlog_samples}
          value={draft.maxBacklog}
          onChange={(maxBacklog) => {
            set({ maxBacklog });
          }}
        />
        {save.notice && <p role="status">{save.notice}</p>}
        {remove.notice && <p role="status">{remove.notice}</p>}
      </PanelForm>
    </section>
  );
}
