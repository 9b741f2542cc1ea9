/**
 * Add a manual device or edit an asset. What the hub refuses is shown under the field it names, and its
 * message above the buttons.
 */
import { useState } from 'react';
import { platforms, type Asset, type AssetCreate, type Platform } from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
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
  const { t } = useT();
  const [form, setForm] = useState<FormState>(() => initialState(asset));
  const save = useResourceMutation({
    mutationFn: async (body: AssetCreate) =>
      asset
        ? (await hub.call('assets.update', { params: { id: asset.id }, body })).data
        : (await hub.call('assets.create', { body })).data,
    invalidates: [['assets'], ['status']],
    onSuccess: (saved) => {
      onSaved?.(saved);
      onClose();
    },
  });
  const { problems } = save;
  const set = (key: keyof FormState) => (event: { target: { value: string } }) => {
    setForm((f) => ({ ...f, [key]: event.target.value }));
  };

  return (
    <FormDialog
      open={open}
      title={asset ? t('common.editNamed', { name: asset.name }) : t('assetForm.addTitle')}
      mutation={save}
      onSubmit={() => {
        save.mutate(bodyOf(form));
      }}
      onClose={onClose}
      submitLabel={asset ? t('common.save') : t('assets.addDevice')}
    >
      <FormField label={t('assetForm.name')} problem={problems.name}>
        {(p) => <input {...p} name="name" required value={form.name} onChange={set('name')} autoFocus />}
      </FormField>
      <FormField label={t('overview.hostname')} problem={problems.hostname}>
        {(p) => <input {...p} name="hostname" value={form.hostname} onChange={set('hostname')} />}
      </FormField>
      <FormField label={t('overview.platform')} problem={problems.platform}>
        {(p) => (
          <select {...p} name="platform" value={form.platform} onChange={set('platform')}>
            {platforms.map((platform) => (
              <option key={platform} value={platform}>
                {t('asset.platform', { platform })}
              </option>
            ))}
          </select>
        )}
      </FormField>
      <FormField label={t('assetForm.ipAddresses')} problem={problems.ip_addresses}>
        {(p) => <input {...p} name="ip_addresses" value={form.ip_addresses} onChange={set('ip_addresses')} />}
      </FormField>
      <FormField label={t('assetForm.macAddress')} problem={problems.mac_address}>
        {(p) => <input {...p} name="mac_address" value={form.mac_address} onChange={set('mac_address')} />}
      </FormField>
      <FormField label={t('assetForm.tags')} problem={problems.tags}>
        {(p) => <input {...p} name="tags" value={form.tags} onChange={set('tags')} />}
      </FormField>
      <FormField label={t('assetForm.description')} problem={problems.description}>
        {(p) => (
          <textarea
            {...p}
            name="description"
            rows={2}
            value={form.description}
            onChange={set('description')}
          />
        )}
      </FormField>
    </FormDialog>
  );
}
