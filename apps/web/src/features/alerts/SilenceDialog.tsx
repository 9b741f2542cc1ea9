/** Silence an alert for a chosen time; the hub's refusal shown as it says it. */
import { useState } from 'react';
import type { Alert } from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { useResourceMutation } from '../../components/use-resource-mutation';

const durations = [
  { minutes: 15, label: '15 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 240, label: '4 hours' },
  { minutes: 1440, label: '1 day' },
  { minutes: 10080, label: '1 week' },
];

export function SilenceDialog({ alert, onClose }: { alert: Alert; onClose: () => void }) {
  const [minutes, setMinutes] = useState(60);
  const silence = useResourceMutation({
    mutationFn: async () =>
      (await hub.call('alerts.silence', { params: { id: alert.id }, body: { duration_minutes: minutes } }))
        .data,
    invalidates: [['alerts']],
    onSuccess: onClose,
  });
  return (
    <FormDialog
      title={`Silence ${alert.rule_name}`}
      mutation={silence}
      onSubmit={() => {
        silence.mutate();
      }}
      onClose={onClose}
      submitLabel="Silence"
      pendingLabel="Silencing…"
    >
      <FormField label="Silence for" problem={silence.problems.duration_minutes}>
        {(control) => (
          <select
            {...control}
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
        )}
      </FormField>
    </FormDialog>
  );
}
