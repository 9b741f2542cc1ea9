import { useQuery } from '@tanstack/react-query';
import { hub } from '../../../api/client';
import { EmptyState } from '../../../components/EmptyState';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

export function NetworkTab({ asset }: AssetTabProps) {
  const network = useQuery({
    queryKey: assetPartKey(asset.id, 'network'),
    queryFn: async () => (await hub.call('system.network', { params: { id: asset.id } })).data,
  });
  return (
    <AgentAnswer query={network} what="network interfaces">
      {({ interfaces }) =>
        interfaces.length === 0 ? (
          <EmptyState title="No network interfaces reported" />
        ) : (
          <div className="rows-scroll">
            <table className="data-table wrap" aria-label="Network interfaces">
              <thead>
                <tr>
                  <th scope="col">Interface</th>
                  <th scope="col">MAC address</th>
                  <th scope="col">Addresses</th>
                </tr>
              </thead>
              <tbody>
                {interfaces.map((nic) => (
                  <tr key={nic.name}>
                    <th scope="row">
                      {nic.name}
                      {nic.internal && <span className="chip">loopback</span>}
                    </th>
                    <td>
                      <code>{nic.mac ?? '—'}</code>
                    </td>
                    <td>
                      <ul className="plain-list">
                        {nic.addresses.map((address) => (
                          <li key={address.address}>
                            <code>{address.cidr ?? address.address}</code>{' '}
                            <span className="muted small">{address.family}</span>
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
