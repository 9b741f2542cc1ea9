/**
 * Runtime settings and policies by domain (spec 2.7): each setting's effective value and where it comes
 * from (api, env, default). One domain is edited at a time, as the spec recommends; the hub's problem with a
 * value is shown under that setting. Settings read only at start say so, and the restart panel restarts the
 * hub and waits for it to answer again.
 */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  settingDomains,
  type Setting,
  type SettingDomain,
  type SettingsPatch,
  type SettingsUpdated,
} from '@svc/protocol';
import { hub, SvcApiError } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FormField } from '../../components/FormField';
import { Loading } from '../../components/Loading';
import { RestartPanel } from './RestartPanel';
import { displayValue, settingInput, valueFromDraft } from './setting-input';

const settingsKey = ['settings'] as const;

const domainText: Record<SettingDomain, { title: string; about: string }> = {
  enrollment: { title: 'Enrollment', about: 'Agent bootstrap: defaults of new enrollment tokens.' },
  connectors: {
    title: 'Connectors',
    about: 'Collector behaviour: service discovery defaults sent to agents when they connect.',
  },
  retention: { title: 'Retention', about: 'How long history is kept.' },
  runtime: { title: 'Runtime and policies', about: 'Behaviour defaults, policy switches and rate limits.' },
  notifications: { title: 'Notifications', about: 'Alert routing and escalation.' },
};

/** The hub's problems by setting key (`body.<key>` or `<key>`). */
function problemsByKey(error: unknown): Record<string, string> {
  if (!(error instanceof SvcApiError)) return {};
  const out: Record<string, string> = {};
  for (const { field, problem } of error.details) out[field.replace(/^body\./, '')] ??= problem;
  return out;
}

interface Draft {
  value: string | boolean;
  /** Drop the API value: the env var or the default applies again. */
  clear: boolean;
}

function draftOf(setting: Setting): Draft {
  return { value: typeof setting.value === 'boolean' ? setting.value : String(setting.value), clear: false };
}

function SourceBadge({ setting }: { setting: Setting }) {
  return (
    <span
      className={`chip source-${setting.source}`}
      title={setting.env_var ? `env var ${setting.env_var}` : undefined}
    >
      {setting.source}
    </span>
  );
}

function SettingControl({
  setting,
  draft,
  problem,
  onChange,
}: {
  setting: Setting;
  draft: Draft;
  problem: string | undefined;
  onChange: (draft: Draft) => void;
}) {
  const input = settingInput(setting);
  const hint = (
    <>
      {setting.description}. Default {displayValue(setting.default)}
      {setting.env_var ? `, env ${setting.env_var}` : ''}
      {setting.restart_required ? '; applied at restart' : ''}.
    </>
  );
  return (
    <div className="setting-edit">
      <FormField label={setting.key} hint={hint} problem={problem}>
        {(p) => {
          const disabled = draft.clear;
          switch (input.kind) {
            case 'boolean':
              return (
                <select
                  {...p}
                  disabled={disabled}
                  value={draft.value === true ? 'true' : 'false'}
                  onChange={(e) => {
                    onChange({ ...draft, value: e.target.value === 'true' });
                  }}
                >
                  <option value="true">on</option>
                  <option value="false">off</option>
                </select>
              );
            case 'choice':
              return (
                <select
                  {...p}
                  disabled={disabled}
                  value={String(draft.value)}
                  onChange={(e) => {
                    onChange({ ...draft, value: e.target.value });
                  }}
                >
                  {input.choices.map((choice) => (
                    <option key={choice} value={choice}>
                      {choice}
                    </option>
                  ))}
                </select>
              );
            case 'integer':
              return (
                <input
                  {...p}
                  type="number"
                  inputMode="numeric"
                  disabled={disabled}
                  min={input.minimum}
                  max={input.maximum}
                  value={String(draft.value)}
                  onChange={(e) => {
                    onChange({ ...draft, value: e.target.value });
                  }}
                />
              );
            case 'text':
              return (
                <input
                  {...p}
                  disabled={disabled}
                  value={String(draft.value)}
                  onChange={(e) => {
                    onChange({ ...draft, value: e.target.value });
                  }}
                />
              );
          }
        }}
      </FormField>
      {setting.source === 'api' && (
        <label className="check small">
          <input
            type="checkbox"
            checked={draft.clear}
            onChange={(e) => {
              onChange({ ...draft, clear: e.target.checked });
            }}
          />
          Clear the API value ({setting.env_var ? 'env or default' : 'default'} applies)
        </label>
      )}
    </div>
  );
}

/** What changed in the form: new values, and null for API values cleared. */
function patchOf(settings: readonly Setting[], drafts: Record<string, Draft>): SettingsPatch {
  const patch: SettingsPatch = {};
  for (const setting of settings) {
    const draft = drafts[setting.key];
    if (!draft) continue;
    if (draft.clear) {
      patch[setting.key] = null;
      continue;
    }
    const value = valueFromDraft(settingInput(setting), draft.value);
    if (value !== setting.value) patch[setting.key] = value;
  }
  return patch;
}

function DomainForm({
  domain,
  settings,
  onDone,
}: {
  domain: SettingDomain;
  settings: readonly Setting[];
  onDone: (result: SettingsUpdated | null) => void;
}) {
  const client = useQueryClient();
  const [drafts, setDrafts] = useState<Record<string, Draft>>(() =>
    Object.fromEntries(settings.map((s) => [s.key, draftOf(s)])),
  );
  const save = useMutation({
    mutationFn: async (patch: SettingsPatch) =>
      (await hub.call('settings.domainUpdate', { params: { domain }, body: patch })).data,
    onSuccess: async (result) => {
      await client.invalidateQueries({ queryKey: settingsKey });
      onDone(result);
    },
  });
  const problems = problemsByKey(save.error);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    const patch = patchOf(settings, drafts);
    if (Object.keys(patch).length === 0) onDone(null);
    else save.mutate(patch);
  };
  return (
    <form
      className="stack-form"
      onSubmit={submit}
      noValidate
      aria-label={`${domainText[domain].title} settings`}
    >
      {settings.map((setting) => (
        <SettingControl
          key={setting.key}
          setting={setting}
          draft={drafts[setting.key] ?? draftOf(setting)}
          problem={problems[setting.key]}
          onChange={(draft) => {
            setDrafts((d) => ({ ...d, [setting.key]: draft }));
          }}
        />
      ))}
      {save.isError && <ErrorNotice error={save.error} />}
      <div className="form-actions">
        <button
          type="button"
          onClick={() => {
            onDone(null);
          }}
          disabled={save.isPending}
        >
          Cancel
        </button>
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : `Save ${domainText[domain].title.toLowerCase()}`}
        </button>
      </div>
    </form>
  );
}

function DomainView({ settings }: { settings: readonly Setting[] }) {
  return (
    <table className="data-table settings-table">
      <thead>
        <tr>
          <th scope="col">Setting</th>
          <th scope="col">Value</th>
          <th scope="col">Source</th>
        </tr>
      </thead>
      <tbody>
        {settings.map((setting) => (
          <tr key={setting.key} data-testid={`setting-${setting.key}`}>
            <th scope="row">
              <code>{setting.key}</code>
              <span className="setting-description">{setting.description}</span>
            </th>
            <td>
              <strong className="setting-value">{displayValue(setting.value)}</strong>
              {setting.restart_required && !setting.pending_restart && (
                <span className="chip" title="Read at start: a change applies after a restart">
                  restart to apply
                </span>
              )}
              {setting.pending_restart && <span className="chip warn">waits for a restart</span>}
            </td>
            <td>
              <SourceBadge setting={setting} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function SavedNotice({ result }: { result: SettingsUpdated }) {
  return (
    <p className="notice ok" role="status">
      Saved {result.changed.length === 0 ? 'with no change' : result.changed.join(', ')}.
      {result.restart_required.length > 0 &&
        ` ${result.restart_required.join(', ')} ${result.restart_required.length === 1 ? 'applies' : 'apply'} after a restart.`}
    </p>
  );
}

export function SettingsPage() {
  const [editing, setEditing] = useState<SettingDomain | null>(null);
  const [saved, setSaved] = useState<{ domain: SettingDomain; result: SettingsUpdated } | null>(null);
  const settings = useQuery({
    queryKey: settingsKey,
    queryFn: async () => (await hub.call('settings.list')).data.settings,
  });
  if (settings.isPending) return <Loading label="Loading the settings" />;
  if (settings.isError) return <ErrorNotice error={settings.error} retry={() => void settings.refetch()} />;
  const all = settings.data;
  return (
    <section className="page" aria-labelledby="settings-title">
      <div className="page-header">
        <h1 id="settings-title">Settings</h1>
      </div>
      <p className="muted">
        A value set here wins over the environment, which wins over the default. Policies apply at once;
        settings read at start wait for a restart.
      </p>
      <RestartPanel pending={all.filter((s) => s.pending_restart)} />
      {settingDomains.map((domain) => {
        const inDomain = all.filter((s) => s.domain === domain);
        if (inDomain.length === 0) return null;
        const isEditing = editing === domain;
        return (
          <section key={domain} className="panel settings-domain" aria-labelledby={`domain-${domain}`}>
            <div className="panel-header">
              <h2 id={`domain-${domain}`}>{domainText[domain].title}</h2>
              {!isEditing && (
                <button
                  type="button"
                  className="small"
                  disabled={editing !== null}
                  aria-label={`Edit ${domainText[domain].title.toLowerCase()} settings`}
                  onClick={() => {
                    setSaved(null);
                    setEditing(domain);
                  }}
                >
                  Edit
                </button>
              )}
            </div>
            <p className="muted small">{domainText[domain].about}</p>
            {saved?.domain === domain && <SavedNotice result={saved.result} />}
            {isEditing ? (
              <DomainForm
                domain={domain}
                settings={inDomain}
                onDone={(result) => {
                  setEditing(null);
                  if (result) setSaved({ domain, result });
                }}
              />
            ) : (
              <DomainView settings={inDomain} />
            )}
          </section>
        );
      })}
    </section>
  );
}
