/**
 * Add a manual device or edit an asset. What the hub refuses is shown under the field it names, and its
 * message above the buttons.
 */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { platforms, type Asset, type AssetCreate, type Platform } from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { splitList } from './asset-format';

interface FormState {
  name: string;
  hostname: string;
  platform: Platform;
  ip_addresses: string;
  mac_address: string;
  tags: string;
  description: string;
}

function initialState(asset: Asset | null): FormState {
  return {
    name: asset?.name ?? '',
    hostname: asset?.hostname ?? '',
    platform: asset?.platform ?? 'linux',
    ip_addresses: asset?.ip_addresses.join(', ') ?? '',
    mac_address: asset?.mac_address ?? '',
    tags: asset?.tags.join(', ') ?? '',
    description: asset?.description ?? '',
  };
}

function bodyOf(form: FormState): AssetCreate {
  return {
    name: form.name.trim(),
    hostname: form.hostname.trim() || null,
    platform: form.platform,
    ip_addresses: splitList(form.ip_addresses),
    mac_address: form.mac_address.trim() || null,
    tags: splitList(form.tags),
    description: form.description.trim() || null,
  };
}

function Field({
  label,
  name,
  problem,
  children,
}: {
  label: string;
  name: string;
  problem: string | undefined;
  children: (props: { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string }) => React.ReactNode;
}) {
  const id = `asset-${name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children({
        id,
        'aria-invalid': problem !== undefined,
        ...(problem !== undefined ? { 'aria-describedby': `${id}-problem` } : {}),
      })}
      {problem !== undefined && (
        <span className="field-error" id={`${id}-problem`}>
          {problem}
        </span>
      )}
    </div>
  );
}

export function AssetFormDialog({
  open,
  asset,
  onClose,
  onSaved,
}: {
  open: boolean;
  /** The asset to edit; null adds a new one. */
  asset: Asset | null;
  onClose: () => void;
  onSaved?: (asset: Asset) => void;
}) {
  const client = useQueryClient();
  const [form, setForm] = useState<FormState>(() => initialState(asset));
  const save = useMutation({
    mutationFn: async (body: AssetCreate) =>
      asset
        ? (await hub.call('assets.update', { params: { id: asset.id }, body })).data
        : (await hub.call('assets.create', { body })).data,
    onSuccess: async (saved) => {
      await client.invalidateQueries({ queryKey: ['assets'] });
      await client.invalidateQueries({ queryKey: ['status'] });
      onSaved?.(saved);
      onClose();
    },
  });
  const problems = fieldProblems(save.error);
  const set = (key: keyof FormState) => (event: { target: { value: string } }) => {
    setForm((f) => ({ ...f, [key]: event.target.value }));
  };
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    save.mutate(bodyOf(form));
  };

  return (
    <Dialog open={open} title={asset ? `Edit ${asset.name}` : 'Add a device'} onClose={onClose}>
      <form className="asset-form" onSubmit={submit} noValidate>
        <Field label="Name" name="name" problem={problems.name}>
          {(p) => <input {...p} name="name" required value={form.name} onChange={set('name')} autoFocus />}
        </Field>
        <Field label="Hostname" name="hostname" problem={problems.hostname}>
          {(p) => <input {...p} name="hostname" value={form.hostname} onChange={set('hostname')} />}
        </Field>
        <Field label="Platform" name="platform" problem={problems.platform}>
          {(p) => (
            <select {...p} name="platform" value={form.platform} onChange={set('platform')}>
              {platforms.map((platform) => (
                <option key={platform} value={platform}>
                  {platform}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="IP addresses (comma separated)" name="ip_addresses" problem={problems.ip_addresses}>
          {(p) => (
            <input {...p} name="ip_addresses" value={form.ip_addresses} onChange={set('ip_addresses')} />
          )}
        </Field>
        <Field label="MAC address (for Wake-on-LAN)" name="mac_address" problem={problems.mac_address}>
          {(p) => <input {...p} name="mac_address" value={form.mac_address} onChange={set('mac_address')} />}
        </Field>
        <Field label="Tags (comma separated)" name="tags" problem={problems.tags}>
          {(p) => <input {...p} name="tags" value={form.tags} onChange={set('tags')} />}
        </Field>
        <Field label="Description" name="description" problem={problems.description}>
          {(p) => (
            <textarea
              {...p}
              name="description"
              rows={2}
              value={form.description}
              onChange={set('description')}
            />
          )}
        </Field>
        {save.isError && <ErrorNotice error={save.error} />}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : asset ? 'Save' : 'Add device'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
