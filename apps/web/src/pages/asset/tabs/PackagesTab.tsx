import { useQuery } from '@tanstack/react-query';
import type { PackageInfo } from '@svc/protocol';
import { hub } from '../../../api/client';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

const columns: RowsColumn<PackageInfo>[] = [
  { key: 'name', label: 'Package', cell: (p) => p.name, sortValue: (p) => p.name },
  { key: 'version', label: 'Version', cell: (p) => p.version, sortValue: (p) => p.version },
  { key: 'arch', label: 'Architecture', cell: (p) => p.arch ?? '—', sortValue: (p) => p.arch ?? '' },
];

export function PackagesTab({ asset }: AssetTabProps) {
  const packages = useQuery({
    queryKey: assetPartKey(asset.id, 'packages'),
    queryFn: async () => (await hub.call('system.packages', { params: { id: asset.id } })).data,
    staleTime: 60_000,
  });
  return (
    <AgentAnswer query={packages} what="packages">
      {(data) => (
        <>
          <p className="muted small">Package manager: {data.manager}</p>
          <RowsTable
            label="Packages"
            rows={data.packages}
            columns={columns}
            rowKey={(p, index) => `${p.name}:${p.arch ?? ''}:${index}`}
            filterText={(p) => `${p.name} ${p.version}`}
            initialSort={{ key: 'name', descending: false }}
            emptyTitle={data.manager === 'none' ? 'No supported package manager on this host' : 'No packages'}
          />
        </>
      )}
    </AgentAnswer>
  );
}
