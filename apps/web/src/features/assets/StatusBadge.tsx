import type { AssetStatus } from '@svc/protocol';
import { useT } from '../../i18n/I18nProvider';

export function StatusBadge({ status }: { status: AssetStatus }) {
  const { t } = useT();
  return (
    <span className={`status-badge status-${status}`}>
      <span className="status-dot" aria-hidden="true" />
      {t('asset.status', { status })}
    </span>
  );
}
