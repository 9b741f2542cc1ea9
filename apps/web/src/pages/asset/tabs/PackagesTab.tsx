import { useQuery } from '@tanstack/react-query';
import type { PackageInfo } from '@svc/protocol';
import { hub } from '../../../api/client';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { useT, type I18n } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

function columnsOf(t: I18n['t']): RowsColumn<PackageInfo>[] {
  return [
    {
      key: 'name',
      label: t('assetTabs.package'),
      cell: (p) => <span translate="no">{p.name}</span>,
      sortValue: (p) => p.name,
    },
    {
      key: 'version',
      label: t('assetTabs.version'),
      cell: (p) => <span translate="no">{p.version}</span>,
      sortValue: (p) => p.version,
    },
    {
      key: 'arch',
      label: t('assetTabs.architecture'),
      cell: (p) => <span translate="no">{p.arch ?? '—'}</span>,
      sortValue: (p) => p.arch ?? '',
    },
  ];
}

export function PackagesTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const packages = useQuery({
    queryKey: assetPartKey(asset.id, 'packages'),
    queryFn: async () => (await hub.call('system.packages', { params: { id: asset.id } })).data,
    staleTime: 60_000,
  });
  return (
    <AgentAnswer query={packages} what="packages">
      {(data) => (
        <>
          <p className="muted small">{t('assetTabs.packageManager', { manager: data.manager })}</p>
          <RowsTable
            label={t('assetTabs.packages')}
            rows={data.packages}
            columns={columnsOf(t)}
            rowKey={(p, index) => `${p.name}:${p.arch ?? ''}:${index}`}
            filterText={(p) => `${p.name} ${p.version}`}
            initialSort={{ key: 'name', descending: false }}
            emptyTitle={t(data.manager === 'none' ? 'assetTabs.noPackageManager' : 'assetTabs.noPackages')}
          />
        </>
      )}
    </AgentAnswer>
  );
}
