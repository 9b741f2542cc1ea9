import { useQuery } from '@tanstack/react-query';
import type { CronJob } from '@svc/protocol';
import { hub } from '../../../api/client';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

const columns: RowsColumn<CronJob>[] = [
  {
    key: 'schedule',
    label: 'Schedule',
    cell: (j) => <code>{j.schedule}</code>,
    sortValue: (j) => j.schedule,
  },
  { key: 'user', label: 'User', cell: (j) => j.user ?? '—', sortValue: (j) => j.user ?? '' },
  {
    key: 'command',
    label: 'Command',
    cell: (j) => <code title={j.command}>{j.command}</code>,
    className: 'cell-wide',
  },
  { key: 'source', label: 'Source', cell: (j) => j.source, sortValue: (j) => j.source },
];

export function CronTab({ asset }: AssetTabProps) {
  const cron = useQuery({
    queryKey: assetPartKey(asset.id, 'cron'),
    queryFn: async () => (await hub.call('system.cron', { params: { id: asset.id } })).data,
  });
  return (
    <AgentAnswer query={cron} what="cron jobs">
      {({ jobs }) => (
        <RowsTable
          label="Cron jobs"
          rows={jobs}
          columns={columns}
          rowKey={(j, index) => `${j.source}:${index}`}
          filterText={(j) => `${j.schedule} ${j.user ?? ''} ${j.command} ${j.source}`}
          emptyTitle="No cron jobs"
        />
      )}
    </AgentAnswer>
  );
}
