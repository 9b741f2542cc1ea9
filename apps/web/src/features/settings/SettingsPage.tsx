/**
 * Runtime settings and policies by domain (spec 2.7): each setting's effective value and where it comes
 * from (api, env, default). One domain is edited at a time, as the spec recommends; the hub's problem with a
 * value is shown under that setting. Settings read only at start say so, and the restart panel restarts the
 * hub and waits for it to answer again.
 */
import { useId, useState, type ReactNode, type SyntheticEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  settingDomains,
  type Setting,
  type SettingDomain,
  type SettingsPatch,
  type SettingsUpdated,
  type SettingValue,
} from '@svc/protocol';
import { hub, SvcApiError } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import type { ControlProps } from '../../components/FormField';
import { Loading } from '../../components/Loading';
import { useT } from '../../i18n/I18nProvider';
import { RestartPanel } from './RestartPanel';
import { settingInput, valueFromDraft } from './setting-input';

const settingsKey = ['settings'] as const;

/** A value as the page shows it: a switch in the reader's words, anything else as the hub has it. */
function useShowValue(): (value: SettingValue) => string {
  const { t } = useT();
  return (value) =>
    typeof value === 'boolean' ? t('settings.switch', { on: value ? 'yes' : 'no' }) : String(value);
}

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
  const { t } = useT();
  return (
    <span
      className={`chip source-${setting.source}`}
      title={setting.env_var ? t('settings.envVar', { name: setting.env_var }) : undefined}
    >
      {t('settings.source', { source: setting.source })}
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
  const { t } = useT();
  const id = useId();
  const show = useShowValue();
  const input = settingInput(setting);
  const hint = (
    <>
      <span translate="no">{setting.description}</span>
      {'. '}
      {t('settings.hint', {
        value: show(setting.default),
        env: setting.env_var ?? 'none',
        restart: setting.restart_required ? 'yes' : 'no',
      })}
    </>
  );
  return (
    <div className="setting-edit">
      <div className="field">
        {/* FormField's markup, with the label marked as data: it is the setting's key. */}
        <label htmlFor={id} translate="no">
          {setting.key}
        </label>
        {((p: ControlProps): ReactNode => {
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
                  <option value="true">{t('settings.switch', { on: 'yes' })}</option>
                  <option value="false">{t('settings.switch', { on: 'no' })}</option>
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
                    <option key={choice} value={choice} translate="no">
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
        })({
          id,
          'aria-invalid': problem !== undefined,
          'aria-describedby': problem === undefined ? `${id}-hint` : `${id}-hint ${id}-problem`,
        })}
        <span className="field-hint" id={`${id}-hint`}>
          {hint}
        </span>
        {problem !== undefined && (
          <span className="field-error" id={`${id}-problem`}>
            {problem}
          </span>
        )}
      </div>
      {setting.source === 'api' && (
        <label className="check small">
          <input
            type="checkbox"
            checked={draft.clear}
            onChange={(e) => {
              onChange({ ...draft, clear: e.target.checked });
            }}
          />
          {t('settings.clear', { env: setting.env_var ? 'yes' : 'no' })}
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
  const { t } = useT();
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
      aria-label={t('settings.domainForm', { domain: t('settings.domain', { domain }) })}
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
          {t('common.cancel')}
        </button>
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending
            ? t('common.saving')
            : t('settings.saveDomain', { domain: t('settings.domainLower', { domain }) })}
        </button>
      </div>
    </form>
  );
}

function DomainView({ settings }: { settings: readonly Setting[] }) {
  const { t } = useT();
  const show = useShowValue();
  return (
    <table className="data-table settings-table">
      <thead>
        <tr>
          <th scope="col">{t('settings.column', { column: 'setting' })}</th>
          <th scope="col">{t('settings.column', { column: 'value' })}</th>
          <th scope="col">{t('settings.column', { column: 'source' })}</th>
        </tr>
      </thead>
      <tbody>
        {settings.map((setting) => (
          <tr key={setting.key} data-testid={`setting-${setting.key}`}>
            <th scope="row">
              <code>{setting.key}</code>
              <span className="setting-description" translate="no">
                {setting.description}
              </span>
            </th>
            <td>
              <strong
                className="setting-value"
                translate={typeof setting.value === 'boolean' ? undefined : 'no'}
              >
                {show(setting.value)}
              </strong>
              {setting.restart_required && !setting.pending_restart && (
                <span className="chip" title={t('settings.restartToApplyTitle')}>
                  {t('settings.restartToApply')}
                </span>
              )}
              {setting.pending_restart && <span className="chip warn">{t('settings.waitsRestart')}</span>}
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
  const { t } = useT();
  return (
    <p className="notice ok" role="status">
      {result.changed.length === 0
        ? t('settings.savedNothing')
        : t('settings.saved', { changed: result.changed.join(', ') })}
      {result.restart_required.length > 0 &&
        ` ${t('settings.appliesAfterRestart', {
          keys: result.restart_required.join(', '),
          n: result.restart_required.length,
        })}`}
    </p>
  );
}

export function SettingsPage() {
  const { t } = useT();
  const [editing, setEditing] = useState<SettingDomain | null>(null);
  const [saved, setSaved] = useState<{ domain: SettingDomain; result: SettingsUpdated } | null>(null);
  const settings = useQuery({
    queryKey: settingsKey,
    queryFn: async () => (await hub.call('settings.list')).data.settings,
  });
  if (settings.isPending) return <Loading label={t('settings.loading')} />;
  if (settings.isError) return <ErrorNotice error={settings.error} retry={() => void settings.refetch()} />;
  const all = settings.data;
  return (
    <section className="page" aria-labelledby="settings-title">
      <div className="page-header">
        <h1 id="settings-title">{t('settings.title')}</h1>
      </div>
      <p className="muted">{t('settings.intro')}</p>
      <RestartPanel pending={all.filter((s) => s.pending_restart)} />
      {settingDomains.map((domain) => {
        const inDomain = all.filter((s) => s.domain === domain);
        if (inDomain.length === 0) return null;
        const isEditing = editing === domain;
        return (
          <section key={domain} className="panel settings-domain" aria-labelledby={`domain-${domain}`}>
            <div className="panel-header">
              <h2 id={`domain-${domain}`}>{t('settings.domain', { domain })}</h2>
              {!isEditing && (
                <button
                  type="button"
                  className="small"
                  disabled={editing !== null}
                  aria-label={t('settings.editDomain', { domain: t('settings.domainLower', { domain }) })}
                  onClick={() => {
                    setSaved(null);
                    setEditing(domain);
                  }}
                >
                  {t('common.edit')}
                </button>
              )}
            </div>
            <p className="muted small">{t('settings.domainAbout', { domain })}</p>
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
