/** Create a webhook (its secret shown once after), or edit one; the hub's refusal under the field it names. */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { eventTypes, type Webhook, type WebhookCreated } from '@svc/protocol';
import { hub } from '../../api/client';
import { fieldProblems } from '../../components/form-problems';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FormField } from '../../components/FormField';

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
  const client = useQueryClient();
  const [name, setName] = useState(webhook?.name ?? '');
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [events, setEvents] = useState<string[]>(webhook?.events ?? []);
  const [enabled, setEnabled] = useState(webhook?.enabled ?? true);
  const save = useMutation({
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
    onSuccess: async (created) => {
      await client.invalidateQueries({ queryKey: webhooksKey });
      if (created) onCreated?.(created);
      onClose();
    },
  });
  const problems = fieldProblems(save.error);
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const toggle = (type: string, on: boolean) => {
    setEvents((current) => (on ? [...current, type] : current.filter((t) => t !== type)));
  };
  return (
    <Dialog open title={webhook ? `Edit ${webhook.name}` : 'New webhook'} onClose={onClose}>
      <form className="asset-form" onSubmit={submit} noValidate>
        <FormField label="Name" problem={problems.name}>
          {(props) => (
            <input
              {...props}
              value={name}
              required
              autoFocus
              onChange={(e) => {
                setName(e.target.value);
              }}
            />
          )}
        </FormField>
        <FormField label="URL" hint="Where the hub POSTs each event, signed." problem={problems.url}>
          {(props) => (
            <input
              {...props}
              type="url"
              value={url}
              required
              placeholder="https://example.net/hooks/svc"
              onChange={(e) => {
                setUrl(e.target.value);
              }}
            />
          )}
        </FormField>
        <fieldset className="field">
          <legend>Events (none chosen: all)</legend>
          <div className="event-picker" role="group" aria-label="Events">
            {eventTypes.map((type) => (
              <label key={type} className="check">
                <input
                  type="checkbox"
                  checked={events.includes(type)}
                  onChange={(e) => {
                    toggle(type, e.target.checked);
                  }}
                />
                {type}
              </label>
            ))}
          </div>
          {problems.events !== undefined && <span className="field-error">{problems.events}</span>}
        </fieldset>
        <label className="check">
          <input
            type="checkbox"
            checked={enabled}
            onChange={(e) => {
              setEnabled(e.target.checked);
            }}
          />
          Enabled
        </label>
        {save.isError && <ErrorNotice error={save.error} />}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={save.isPending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={save.isPending}>
            {save.isPending ? 'Saving…' : webhook ? 'Save' : 'Create webhook'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
