import type { AlertSeverity } from '@svc/protocol';
import { useT } from '../../i18n/I18nProvider';

/** A severity as a coloured label: info, warning, critical. */
export function SeverityBadge({ severity }: { severity: AlertSeverity }) {
  const { t } = useT();
  return <span className={`severity-badge severity-${severity}`}>{t('alert.severity', { severity })}</span>;
}
