import { useQuery } from '@tanstack/react-query';
import type { CronJob } from '@svc/protocol';
import { hub } from '../../../api/client';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { useT, type I18n } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

function columnsOf(t: I18n['t']): RowsColumn<CronJob>[] {
  return [
    {
      key: 'schedule',
      label: t('assetTabs.schedule'),
      cell: (j) => <code>{j.schedule}</code>,
      sortValue: (j) => j.schedule,
    },
    {
      key: 'user',
      label: t('assetTabs.user'),
      cell: (j) => <span translate="no">{j.user ?? '—'}</span>,
      sortValue: (j) => j.user ?? '',
    },
    {
      key: 'command',
      label: t('assetTabs.command'),
      cell: (j) => <code title={j.command}>{j.command}</code>,
      className: 'cell-wide',
    },
    {
      key: 'source',
      label: t('assetTabs.source'),
      cell: (j) => <code>{j.source}</code>,
      sortValue: (j) => j.source,
    },
  ];
}

export function CronTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const cron = useQuery({
    queryKey: assetPartKey(asset.id, 'cron'),
    queryFn: async () => (await hub.call('system.cron', { params: { id: asset.id } })).data,
  });
  return (
    <AgentAnswer query={cron} what="cron">
      {({ jobs }) => (
        <RowsTable
          label={t('assetTabs.cronJobs')}
          rows={jobs}
          columns={columnsOf(t)}
          rowKey={(j, index) => `${j.source}:${index}`}
          filterText={(j) => `${j.schedule} ${j.user ?? ''} ${j.command} ${j.source}`}
          emptyTitle={t('assetTabs.noCronJobs')}
        />
      )}
    </AgentAnswer>
  );
}
