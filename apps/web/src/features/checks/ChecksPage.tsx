/** Service checks: every check with its status, uptime, latency and certificate expiry (docs/checks.md). */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { PageHeader } from '../../components/PageHeader';
import { useT } from '../../i18n/I18nProvider';
import { checksKey } from './CheckFormDialog';
import { ChecksTable } from './ChecksTable';

export function ChecksPage() {
  const { t } = useT();
  const { canMutate } = useSession();
  const [creating, setCreating] = useState(false);
  const count = useQuery({
    queryKey: [...checksKey, 'all'],
    queryFn: async () => (await hub.call('checks.list', { query: { per_page: 500 } })).data,
  });
  return (
    <section className="page" aria-labelledby="checks-title">
      <PageHeader
        titleId="checks-title"
        title={t('checks.title')}
        count={count.isSuccess ? t('checks.count', { n: count.data.length }) : undefined}
        action={
          canMutate && {
            label: t('checks.new'),
            onClick: () => {
              setCreating(true);
            },
          }
        }
      />
      <ChecksTable
        creating={creating}
        onCreated={() => {
          setCreating(false);
        }}
      />
    </section>
  );
}
