/**
 * Create an API key (name, role, scopes, allowed assets, expiry) or edit one (everything but the role, which
 * the hub never changes). An edit sends only the fields that changed. The hub's problems are shown under
 * the field they name, its message above the buttons.
 */
import { useState } from 'react';
import {
  assignableRoles,
  type ApiKey,
  type ApiKeyCreate,
  type ApiKeyCreated,
  type ApiKeyUpdate,
  type AssignableRole,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
import { KeyAssetsField } from './KeyAssetsField';
import { daysFromNow, fromLocalInput, toLocalInput } from './expiry';
import { ScopePicker } from './ScopePicker';
import { sameScopes, type ScopeSelection } from './scope-selection';

interface KeyForm {
  name: string;
  role: AssignableRole;
  scopes: ScopeSelection;
  allowedAssets: string[];
  /** `datetime-local` text; empty for no expiry. */
  expires: string;
}

function initialForm(key: ApiKey | null): KeyForm {
  return {
    name: key?.name ?? '',
    role: key && key.role !== 'owner' ? key.role : 'operator',
    scopes: key?.scopes ?? [],
    allowedAssets: key?.allowed_assets ?? [],
    expires: toLocalInput(key?.expires_at ?? null),
  };
}

function createBody(form: KeyForm): ApiKeyCreate {
  const expires = fromLocalInput(form.expires);
  return {
    name: form.name.trim(),
    role: form.role,
    scopes: [...form.scopes],
    ...(form.allowedAssets.length > 0 ? { allowed_assets: form.allowedAssets } : {}),
    ...(expires ? { expires_at: expires } : {}),
  };
}

/** Only what changed; null clears the expiry. */
function updateBody(key: ApiKey, form: KeyForm): ApiKeyUpdate {
  const body: ApiKeyUpdate = {};
  if (form.name.trim() !== key.name) body.name = form.name.trim();
  if (!sameScopes(form.scopes, key.scopes)) body.scopes = [...form.scopes];
  if (!sameScopes(form.allowedAssets, key.allowed_assets)) body.allowed_assets = form.allowedAssets;
  const expires = fromLocalInput(form.expires);
  if (toLocalInput(expires) !== toLocalInput(key.expires_at)) body.expires_at = expires;
  return body;
}

const expiryPresets = [30, 90, 365] as const;

export function KeyFormDialog({
  open,
  apiKey,
  onClose,
  onCreated,
}: {
  open: boolean;
  /** The key to edit; null creates one. */
  apiKey: ApiKey | null;
  onClose: () => void;
  onCreated: (created: ApiKeyCreated) => void;
}) {
  const { t, rich } = useT();
  const [form, setForm] = useState<KeyForm>(() => initialForm(apiKey));
  const [nothingChanged, setNothingChanged] = useState(false);
  const save = useResourceMutation({
    mutationFn: async (): Promise<ApiKeyCreated | null> => {
      if (!apiKey) return (await hub.call('keys.create', { body: createBody(form) })).data;
      await hub.call('keys.update', { params: { id: apiKey.id }, body: updateBody(apiKey, form) });
      return null;
    },
    invalidates: [['keys']],
    onSuccess: (created) => {
      if (created) onCreated(created);
      onClose();
    },
  });
  const { problems } = save;
  const submit = () => {
    if (apiKey && Object.keys(updateBody(apiKey, form)).length === 0) {
      setNothingChanged(true);
      return;
    }
    setNothingChanged(false);
    save.mutate();
  };

  return (
    <FormDialog
      open={open}
      title={apiKey ? t('keys.editTitle', { name: apiKey.name }) : t('keys.createTitle')}
      mutation={save}
      onSubmit={submit}
      onClose={onClose}
      submitLabel={apiKey ? t('common.save') : t('keys.create')}
      className="stack-form"
    >
      <FormField label={t('keys.name')} problem={problems.name}>
        {(p) => (
          <input
            {...p}
            value={form.name}
            required
            autoFocus
            onChange={(e) => {
              setForm((f) => ({ ...f, name: e.target.value }));
            }}
          />
        )}
      </FormField>
      {apiKey ? (
        <p className="muted small">
          {rich('keys.fixedRole', { role: <strong>{t('role.name', { role: apiKey.role })}</strong> })}
        </p>
      ) : (
        <FormField label={t('keys.role')} problem={problems.role} hint={t('keys.roleHint')}>
          {(p) => (
            <select
              {...p}
              value={form.role}
              onChange={(e) => {
                setForm((f) => ({ ...f, role: e.target.value as AssignableRole }));
              }}
            >
              {assignableRoles.map((role) => (
                <option key={role} value={role}>
                  {t('role.name', { role })}
                </option>
              ))}
            </select>
          )}
        </FormField>
      )}
      <ScopePicker
        value={form.scopes}
        problem={problems.scopes}
        onChange={(scopes) => {
          setForm((f) => ({ ...f, scopes }));
        }}
      />
      <KeyAssetsField
        value={form.allowedAssets}
        problem={problems.allowed_assets}
        locked={apiKey !== null && apiKey.allowed_assets.length > 0}
        onChange={(allowedAssets) => {
          setForm((f) => ({ ...f, allowedAssets }));
        }}
      />
      <FormField label={t('keys.expires')} problem={problems.expires_at} hint={t('keys.expiresHint')}>
        {(p) => (
          <div className="inline-controls">
            <input
              {...p}
              type="datetime-local"
              value={form.expires}
              onChange={(e) => {
                setForm((f) => ({ ...f, expires: e.target.value }));
              }}
            />
            {expiryPresets.map((days) => (
              <button
                key={days}
                type="button"
                className="small"
                onClick={() => {
                  setForm((f) => ({ ...f, expires: toLocalInput(daysFromNow(days)) }));
                }}
              >
                {t('keys.preset', { days })}
              </button>
            ))}
            <button
              type="button"
              className="small"
              onClick={() => {
                setForm((f) => ({ ...f, expires: '' }));
              }}
            >
              {t('keys.never')}
            </button>
          </div>
        )}
      </FormField>
      {nothingChanged && (
        <p className="notice" role="status">
          {t('keys.nothingChanged')}
        </p>
      )}
    </FormDialog>
  );
}
