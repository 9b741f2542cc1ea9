/** A run's targets by state, in the reader's language: "2 ok, 1 failed of 3", or "3 targets" before any. */
import type { UpdateRunCounts } from '@svc/protocol';
import { useT } from '../../i18n/I18nProvider';
import { countParts } from './updates-text';

export function CountsText({ counts }: { counts: UpdateRunCounts }) {
  const { t } = useT();
  const parts = countParts(counts);
  return (
    <>
      {parts.length === 0
        ? t('updates.countsNone', { total: counts.total })
        : t('updates.countsOf', {
            counts: parts.map(({ status, n }) => t('updates.count', { n, status })).join(', '),
            total: counts.total,
          })}
    </>
  );
}
