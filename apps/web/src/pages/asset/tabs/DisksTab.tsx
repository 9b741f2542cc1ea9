import { useQuery } from '@tanstack/react-query';
import { hub } from '../../../api/client';
import { EmptyState } from '../../../components/EmptyState';
import { formatBytes, formatPercent } from '../../../components/units';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

export function DisksTab({ asset }: AssetTabProps) {
  const disks = useQuery({
    queryKey: assetPartKey(asset.id, 'disks'),
    queryFn: async () => (await hub.call('system.disks', { params: { id: asset.id } })).data,
  });
  return (
    <AgentAnswer query={disks} what="disks">
      {({ filesystems }) =>
        filesystems.length === 0 ? (
          <EmptyState title="No file systems reported" />
        ) : (
          <div className="rows-scroll">
            <table className="data-table" aria-label="File systems">
              <thead>
                <tr>
                  <th scope="col">Mount</th>
                  <th scope="col">Device</th>
                  <th scope="col">Type</th>
                  <th scope="col">Size</th>
                  <th scope="col">Used</th>
                  <th scope="col">Available</th>
                  <th scope="col">Usage</th>
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
                      <td>{fs.device}</td>
                      <td>{fs.fstype}</td>
                      <td>{formatBytes(fs.size_bytes)}</td>
                      <td>{formatBytes(fs.used_bytes)}</td>
                      <td>{formatBytes(fs.available_bytes)}</td>
                      <td className="cell-usage">
                        <meter
                          min={0}
                          max={100}
                          low={80}
                          high={90}
                          optimum={0}
                          value={percent ?? 0}
                          aria-label={`${fs.mount} used`}
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
