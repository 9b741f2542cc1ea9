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
import { formatTime } from '../../components/units';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { prometheusKey } from './prometheus-query';

function RemoteWriteStatusFacts({ status }: { status: RemoteWriteStatus | null }) {
  if (status === null) return <p className="muted">Nothing sent yet.</p>;
  return (
    <dl className="facts" aria-label="Remote write status">
      <div>
        <dt>Keeping up</dt>
        <dd className={status.keeping_up ? 'state-ok' : 'state-bad'}>{status.keeping_up ? 'Yes' : 'No'}</dd>
      </div>
      <div>
        <dt>Backlog</dt>
        <dd>
          {status.backlog_samples}
          {status.backlog_capped ? '+' : ''} samples
        </dd>
      </div>
      <div>
        <dt>Sent</dt>
        <dd>{status.sent_samples} samples</dd>
      </div>
      <div>
        <dt>Dropped</dt>
        <dd>{status.dropped_samples} samples</dd>
      </div>
      <div>
        <dt>Last success</dt>
        <dd>{status.last_success_at ? formatTime(status.last_success_at) : '—'}</dd>
      </div>
      <div>
        <dt>Last error</dt>
        <dd>
          {status.last_error ?? '—'}
          {status.last_error_at ? ` (${formatTime(status.last_error_at)})` : ''}
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
    notice: () => 'Remote write saved.',
  });
  const remove = useResourceMutation({
    mutationFn: async () => (await hub.call('prometheus.remoteWriteRemove', {})).data,
    invalidates: [prometheusKey],
    notice: () => 'Remote write removed.',
  });
  const p = save.problems;
  const credentialsSet = settings.remote_write?.credentials_set === true;
  return (
    <section className="panel" aria-labelledby="prometheus-rw-title">
      <h2 id="prometheus-rw-title">Remote write</h2>
      <p>
        The hub sends the metrics its agents report (<code>svc_cpu_percent</code>, <code>svc_load1</code>, …
        with the labels <code>asset_id</code> and <code>name</code>) to a Prometheus-compatible receiver.
      </p>
      {settings.remote_write !== null && <RemoteWriteStatusFacts status={settings.status} />}
      <PanelForm
        title={settings.remote_write === null ? 'Set up remote write' : 'Receiver'}
        mutation={save}
        onSubmit={() => {
          save.mutate(bodyOf(draft));
        }}
        submitLabel="Save remote write"
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
              Remove remote write
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
          Send metrics
        </label>
        <TextField
          label="Receiver URL"
          hint="e.g. https://prometheus.lan:9090/api/v1/write; checked by the hub's outbound rules"
          problem={p.url}
          value={draft.url}
          onChange={(url) => {
            set({ url });
          }}
        />
        <FormField label="Authentication" problem={p.auth}>
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
                  {kind === 'none'
                    ? 'None'
                    : kind === 'bearer'
                      ? 'Bearer token'
                      : 'Basic (user and password)'}
                </option>
              ))}
            </select>
          )}
        </FormField>
        {draft.auth === 'basic' && (
          <TextField
            label="Username"
            problem={p.username}
            value={draft.username}
            onChange={(username) => {
              set({ username });
            }}
          />
        )}
        {draft.auth !== 'none' && (
          <TextField
            label={draft.auth === 'bearer' ? 'Token' : 'Password'}
            type="password"
            autoComplete="off"
            hint={credentialsSet ? 'Stored; leave empty to keep it' : 'Stored sealed, never shown again'}
            problem={p.credentials}
            value={draft.credentials}
            onChange={(credentials) => {
              set({ credentials });
            }}
          />
        )}
        <FormField label="Certificate check" problem={p.tls_mode}>
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
                  {mode === 'system'
                    ? 'Trusted CAs'
                    : mode === 'pinned_ca'
                      ? 'A CA of its own'
                      : mode === 'fingerprint'
                        ? 'Pinned certificate fingerprint'
                        : 'No check (insecure)'}
                </option>
              ))}
            </select>
          )}
        </FormField>
        {draft.tlsMode === 'pinned_ca' && (
          <TextField
            label="CA certificate (PEM)"
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
            label="SHA-256 fingerprint"
            problem={p.tls_fingerprint}
            value={draft.tlsFingerprint}
            onChange={(tlsFingerprint) => {
              set({ tlsFingerprint });
            }}
          />
        )}
        <TextField
          label="Backlog bound (samples)"
          hint="Unsent samples beyond it are dropped, oldest first"
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
