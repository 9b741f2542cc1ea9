/** Create a webhook (its secret shown once after), or edit one; the hub's refusal under the field it names. */
import { useState } from 'react';
import { eventTypes, type Webhook, type WebhookCreated } from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { TextField } from '../../components/TextField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';

export const webhooksKey = ['webhooks'] as const;

export function WebhookFormDialog({
  webhook,
  onClose,
  onCreated,
}: {
  /** The webhook to edit; null creates one. */
  webhook: Webhook | null;
  onClose: () => void;
  onCreated?: (created: WebhookCreated) => void;
}) {
  const { t } = useT();
  const [name, setName] = useState(webhook?.name ?? '');
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [events, setEvents] = useState<string[]>(webhook?.events ?? []);
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);
  const save = useResourceMutation({
    mutationFn: async () => {
      const body = {
        name: name.trim(),
        url: url.trim(),
        events: events as (typeof eventTypes)[number][],
        enabled,
      };
      if (webhook) {
        await hub.call('webhooks.update', { params: { id: webhook.id }, body });
        return null;
      }
      return (await hub.call('webhooks.create', { body })).data;
    },
    invalidates: [webhooksKey],
    onSuccess: (created) => {
      if (created) onCreated?.(created);
      onClose();
    },
  });
  const { problems } = save;
  const toggle = (type: string, on: boolean) => {
    setEvents((current) => (on ? [...current, type] : current.filter((e) => e !== type)));
  };
  return (
    <FormDialog
      title={webhook ? t('common.editNamed', { name: webhook.name }) : t('webhooks.new')}
      mutation={save}
      onSubmit={() => {
        save.mutate();
      }}
      onClose={onClose}
      submitLabel={webhook ? t('common.save') : t('webhooks.create')}
    >
      <TextField
        label={t('webhooks.name')}
        problem={problems.name}
        value={name}
        required
        autoFocus
        onChange={setName}
      />
      <TextField
        label={t('webhooks.url')}
        hint={t('webhooks.urlHint')}
        problem={problems.url}
        type="url"
        value={url}
        required
        placeholder={t('webhooks.urlPlaceholder')}
        onChange={setUrl}
      />
      <fieldset className="field">
        <legend>{t('webhooks.eventsLegend')}</legend>
        <div className="event-picker" role="group" aria-label={t('webhooks.events')}>
          {eventTypes.map((type) => (
            <label key={type} className="check">
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(e) => {
                  toggle(type, e.target.checked);
                }}
              />
              <span translate="no">{type}</span>
            </label>
          ))}
        </div>
        {problems.events !== undefined && (
          <span className="field-error" translate="no">
            {problems.events}
          </span>
        )}
      </fieldset>
      <label className="check">
        <input
          type="checkbox"
          checked={enabled}
          onChange={(e) => {
            setEnabled(e.target.checked);
          }}
        />
        {t('webhooks.enabled')}
      </label>
    </FormDialog>
  );
}
