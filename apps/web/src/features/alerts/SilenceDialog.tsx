/** Silence an alert for a chosen time; the hub's refusal shown as it says it. */
import { useState } from 'react';
import type { Alert } from '@svc/protocol';
import { hub } from '../../api/client';
import { FormDialog } from '../../components/FormDialog';
import { FormField } from '../../components/FormField';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';

const durations = [
  { minutes: 15, unit: 'minutes', n: 15 },
  { minutes: 60, unit: 'hours', n: 1 },
  { minutes: 240, unit: 'hours', n: 4 },
  { minutes: 1440, unit: 'days', n: 1 },
  { minutes: 10080, unit: 'weeks', n: 1 },
] as const;

export function SilenceDialog({ alert, onClose }: { alert: Alert; onClose: () => void }) {
  const { t } = useT();
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
      title={t('silence.title', { name: alert.rule_name })}
      mutation={silence}
      onSubmit={() => {
        silence.mutate();
      }}
      onClose={onClose}
      submitLabel={t('silence.submit')}
      pendingLabel={t('silence.pending')}
    >
      <FormField label={t('silence.for')} problem={silence.problems.duration_minutes}>
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
                {t('silence.duration', { unit: d.unit, n: d.n })}
              </option>
            ))}
          </select>
        )}
      </FormField>
    </FormDialog>
  );
}
