import { useQuery } from '@tanstack/react-query';
import { hub } from '../../../api/client';
import { EmptyState } from '../../../components/EmptyState';
import { useT } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

export function NetworkTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const network = useQuery({
    queryKey: assetPartKey(asset.id, 'network'),
    queryFn: async () => (await hub.call('system.network', { params: { id: asset.id } })).data,
  });
  return (
    <AgentAnswer query={network} what="network">
      {({ interfaces }) =>
        interfaces.length === 0 ? (
          <EmptyState title={t('assetTabs.noInterfaces')} />
        ) : (
          <div className="rows-scroll">
            <table className="data-table wrap" aria-label={t('assetTabs.networkInterfaces')}>
              <thead>
                <tr>
                  <th scope="col">{t('assetTabs.interface')}</th>
                  <th scope="col">{t('assetTabs.macAddress')}</th>
                  <th scope="col">{t('assetTabs.addresses')}</th>
                </tr>
              </thead>
              <tbody>
                {interfaces.map((nic) => (
                  <tr key={nic.name}>
                    <th scope="row">
                      <span translate="no">{nic.name}</span>
                      {nic.internal && <span className="chip">{t('assetTabs.loopback')}</span>}
                    </th>
                    <td>
                      <code>{nic.mac ?? '—'}</code>
                    </td>
                    <td>
                      <ul className="plain-list">
                        {nic.addresses.map((address) => (
                          <li key={address.address}>
                            <code>{address.cidr ?? address.address}</code>{' '}
                            <span className="muted small" translate="no">
                              {address.family}
                            </span>
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )
      }
    </AgentAnswer>
  );
}
