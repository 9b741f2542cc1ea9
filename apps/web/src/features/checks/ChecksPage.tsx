/** Service checks: every check with its status, uptime, latency and certificate expiry (docs/checks.md). */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { PageHeader } from '../../components/PageHeader';
import { checksKey } from './CheckFormDialog';
import { ChecksTable } from './ChecksTable';

export function ChecksPage() {
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
        title="Service checks"
        count={count.isSuccess ? { n: count.data.length, noun: 'check' } : undefined}
        action={
          canMutate && {
            label: 'New check',
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
