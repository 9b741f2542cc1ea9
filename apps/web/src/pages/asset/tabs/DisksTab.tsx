import { useQuery } from '@tanstack/react-query';
import { hub } from '../../../api/client';
import { EmptyState } from '../../../components/EmptyState';
import { formatBytes, formatPercent } from '../../../components/units';
import { useT } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

export function DisksTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const disks = useQuery({
    queryKey: assetPartKey(asset.id, 'disks'),
    queryFn: async () => (await hub.call('system.disks', { params: { id: asset.id } })).data,
  });
  return (
    <AgentAnswer query={disks} what="disks">
      {({ filesystems }) =>
        filesystems.length === 0 ? (
          <EmptyState title={t('assetTabs.noFileSystems')} />
        ) : (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('assetTabs.fileSystems')}>
              <thead>
                <tr>
                  <th scope="col">{t('assetTabs.mount')}</th>
                  <th scope="col">{t('assetTabs.device')}</th>
                  <th scope="col">{t('assetTabs.type')}</th>
                  <th scope="col">{t('assetTabs.size')}</th>
                  <th scope="col">{t('assetTabs.used')}</th>
                  <th scope="col">{t('assetTabs.available')}</th>
                  <th scope="col">{t('assetTabs.usage')}</th>
                </tr>
              </thead>
              <tbody>
                {filesystems.map((fs) => {
                  const percent = fs.size_bytes > 0 ? (fs.used_bytes / fs.size_bytes) * 100 : null;
                  return (
                    <tr key={`${fs.mount}:${fs.device}`}>
                      <th scope="row">
                        <code>{fs.mount}</code>
                      </th>
                      <td translate="no">{fs.device}</td>
                      <td translate="no">{fs.fstype}</td>
                      <td translate="no">{formatBytes(fs.size_bytes)}</td>
                      <td translate="no">{formatBytes(fs.used_bytes)}</td>
                      <td translate="no">{formatBytes(fs.available_bytes)}</td>
                      <td className="cell-usage">
                        <meter
                          min={0}
                          max={100}
                          low={80}
                          high={90}
                          optimum={0}
                          value={percent ?? 0}
                          aria-label={t('assetTabs.mountUsed', { mount: fs.mount })}
                        />{' '}
                        {formatPercent(percent)}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )
      }
    </AgentAnswer>
  );
}
