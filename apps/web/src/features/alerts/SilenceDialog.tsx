/** Silence an alert for a chosen time; the hub's refusal shown as it says it. */
import { useState, type SyntheticEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Alert } from '@svc/protocol';
import { hub } from '../../api/client';
import { Dialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';

const durations = [
  { minutes: 15, label: '15 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 240, label: '4 hours' },
  { minutes: 1440, label: '1 day' },
  { minutes: 10080, label: '1 week' },
];

export function SilenceDialog({ alert, onClose }: { alert: Alert; onClose: () => void }) {
  const client = useQueryClient();
  const [minutes, setMinutes] = useState(60);
  const silence = useMutation({
    mutationFn: async () =>
      (await hub.call('alerts.silence', { params: { id: alert.id }, body: { duration_minutes: minutes } }))
        .data,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['alerts'] });
      onClose();
    },
  });
  const submit = (event: SyntheticEvent) => {
    event.preventDefault();
    silence.mutate();
  };
  return (
    <Dialog open title={`Silence ${alert.rule_name}`} onClose={onClose}>
      <form className="asset-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor="silence-duration">Silence for</label>
          <select
            id="silence-duration"
            value={minutes}
            onChange={(e) => {
              setMinutes(Number(e.target.value));
            }}
          >
            {durations.map((d) => (
              <option key={d.minutes} value={d.minutes}>
                {d.label}
              </option>
            ))}
          </select>
        </div>
        {silence.isError && <ErrorNotice error={silence.error} />}
        <div className="dialog-actions">
          <button type="button" onClick={onClose} disabled={silence.isPending}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={silence.isPending}>
            {silence.isPending ? 'Silencing…' : 'Silence'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
