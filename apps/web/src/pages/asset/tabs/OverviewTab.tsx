/** What the hub knows of the asset (agent, last seen, platform, addresses, tags) and its power actions. */
import { lastSeenText } from '../../../features/assets/asset-format';
import { useSession } from '../../../app/session';
import { formatTime } from '../../../components/units';
import { BlastRadiusPanel } from '../../../features/dependencies/BlastRadiusPanel';
import type { AssetTabProps } from '../asset-tabs';
import { PowerPanel } from '../PowerPanel';

export function OverviewTab({ asset: a }: AssetTabProps) {
  const { canMutate } = useSession();
  return (
    <div className="overview">
      <dl className="facts">
        <div>
          <dt>Agent</dt>
          <dd>
            {a.agent
              ? `${a.agent.connected ? 'connected' : 'disconnected'}${a.agent.version ? `, version ${a.agent.version}` : ''}`
              : 'none (manual device)'}
          </dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>
            {a.last_seen_at ? (
              <time dateTime={a.last_seen_at} title={formatTime(a.last_seen_at)}>
                {lastSeenText(a, 'never')}
              </time>
            ) : (
              'never'
            )}
          </dd>
        </div>
        {a.agent?.connected_at && (
          <div>
            <dt>Connected since</dt>
            <dd>
              <time dateTime={a.agent.connected_at}>{formatTime(a.agent.connected_at)}</time>
            </dd>
          </div>
        )}
        <div>
          <dt>Platform</dt>
          <dd>{a.platform}</dd>
        </div>
        <div>
          <dt>Hostname</dt>
          <dd>{a.hostname ?? '—'}</dd>
        </div>
        <div>
          <dt>IP addresses</dt>
          <dd>{a.ip_addresses.length > 0 ? a.ip_addresses.join(', ') : '—'}</dd>
        </div>
        <div>
          <dt>MAC address</dt>
          <dd>{a.mac_address ?? '—'}</dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>{a.tags.length > 0 ? a.tags.join(', ') : '—'}</dd>
        </div>
        <div>
          <dt>Source</dt>
          <dd>{a.source}</dd>
        </div>
        <div>
          <dt>Added</dt>
          <dd>
            <time dateTime={a.created_at}>{formatTime(a.created_at)}</time>
          </dd>
        </div>
      </dl>
      {a.description && <p className="description">{a.description}</p>}
      {a.hub_host && (
        <p className="muted small">
          This machine runs the hub: commands, files, processes and logs here need the admin role.
        </p>
      )}
      <BlastRadiusPanel assetId={a.id} />
      {canMutate && <PowerPanel asset={a} />}
    </div>
  );
}
