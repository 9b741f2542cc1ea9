import { useQuery } from '@tanstack/react-query';
import type { SystemUser } from '@svc/protocol';
import { hub } from '../../../api/client';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { useT, type I18n } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

function columnsOf(t: I18n['t']): RowsColumn<SystemUser>[] {
  return [
    {
      key: 'name',
      label: t('assetTabs.user'),
      cell: (u) => <span translate="no">{u.name}</span>,
      sortValue: (u) => u.name,
    },
    { key: 'uid', label: t('assetTabs.uid'), cell: (u) => u.uid, sortValue: (u) => u.uid },
    { key: 'gid', label: t('assetTabs.gid'), cell: (u) => u.gid, sortValue: (u) => u.gid },
    { key: 'home', label: t('assetTabs.home'), cell: (u) => <code>{u.home}</code>, sortValue: (u) => u.home },
    {
      key: 'shell',
      label: t('assetTabs.shell'),
      cell: (u) => <code>{u.shell}</code>,
      sortValue: (u) => u.shell,
    },
    { key: 'gecos', label: t('assetTabs.fullName'), cell: (u) => <span translate="no">{u.gecos}</span> },
  ];
}

export function UsersTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const users = useQuery({
    queryKey: assetPartKey(asset.id, 'users'),
    queryFn: async () => (await hub.call('system.users', { params: { id: asset.id } })).data,
  });
  return (
    <AgentAnswer query={users} what="users">
      {(data) => (
        <RowsTable
          label={t('assetTabs.systemUsers')}
          rows={data.users}
          columns={columnsOf(t)}
          rowKey={(u) => `${u.name}:${u.uid}`}
          filterText={(u) => `${u.name} ${u.uid} ${u.home} ${u.shell} ${u.gecos}`}
          initialSort={{ key: 'uid', descending: false }}
          emptyTitle={t('assetTabs.noUsers')}
        />
      )}
    </AgentAnswer>
  );
}
