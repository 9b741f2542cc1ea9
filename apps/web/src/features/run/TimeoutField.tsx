/**
 * The exec timeout, in seconds within the hub's bounds: one field for the Run page and saved actions.
 */
import { execLimits } from '@svc/protocol';
import { FormField } from '../../components/FormField';
import { useT } from '../../i18n/I18nProvider';

export function TimeoutField({
  value,
  onChange,
  problem,
}: {
  value: string;
  onChange: (text: string) => void;
  problem: string | undefined;
}) {
  const { t } = useT();
  return (
    <FormField label={t('run.timeout', { max: execLimits.maxTimeout })} problem={problem}>
      {(control) => (
        <input
          {...control}
          type="number"
          min={1}
          max={execLimits.maxTimeout}
          value={value}
          onChange={(e) => {
            onChange(e.target.value);
          }}
        />
      )}
    </FormField>
  );
}
