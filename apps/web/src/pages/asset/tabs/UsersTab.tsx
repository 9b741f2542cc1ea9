import { useQuery } from '@tanstack/react-query';
import type { SystemUser } from '@svc/protocol';
import { hub } from '../../../api/client';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

const columns: RowsColumn<SystemUser>[] = [
  { key: 'name', label: 'User', cell: (u) => u.name, sortValue: (u) => u.name },
  { key: 'uid', label: 'UID', cell: (u) => u.uid, sortValue: (u) => u.uid },
  { key: 'gid', label: 'GID', cell: (u) => u.gid, sortValue: (u) => u.gid },
  { key: 'home', label: 'Home', cell: (u) => <code>{u.home}</code>, sortValue: (u) => u.home },
  { key: 'shell', label: 'Shell', cell: (u) => <code>{u.shell}</code>, sortValue: (u) => u.shell },
  { key: 'gecos', label: 'Full name', cell: (u) => u.gecos },
];

export function UsersTab({ asset }: AssetTabProps) {
  const users = useQuery({
    queryKey: assetPartKey(asset.id, 'users'),
    queryFn: async () => (await hub.call('system.users', { params: { id: asset.id } })).data,
  });
  return (
    <AgentAnswer query={users} what="users">
      {(data) => (
        <RowsTable
          label="System users"
          rows={data.users}
          columns={columns}
          rowKey={(u) => `${u.name}:${u.uid}`}
          filterText={(u) => `${u.name} ${u.uid} ${u.home} ${u.shell} ${u.gecos}`}
          initialSort={{ key: 'uid', descending: false }}
          emptyTitle="No users"
        />
      )}
    </AgentAnswer>
  );
}
