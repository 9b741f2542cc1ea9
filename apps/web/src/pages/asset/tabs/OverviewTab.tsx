/** What the hub knows of the asset (agent, last seen, platform, addresses, tags) and its power actions. */
import { lastSeenText } from '../../../features/assets/asset-format';
import { useSession } from '../../../app/session';
import { formatTime } from '../../../components/units';
import { useT } from '../../../i18n/I18nProvider';
import { BlastRadiusPanel } from '../../../features/dependencies/BlastRadiusPanel';
import type { AssetTabProps } from '../asset-tabs';
import { PowerPanel } from '../PowerPanel';

export function OverviewTab({ asset: a }: AssetTabProps) {
  const { t } = useT();
  const { canMutate } = useSession();
  return (
    <div className="overview">
      <dl className="facts">
        <div>
          <dt>{t('overview.agent')}</dt>
          <dd>
            {a.agent
              ? t(a.agent.version ? 'overview.agentVersion' : 'overview.agentState', {
                  connected: a.agent.connected ? 'yes' : 'no',
                  version: a.agent.version ?? '',
                })
              : t('overview.agentNone')}
          </dd>
        </div>
        <div>
          <dt>{t('overview.lastSeen')}</dt>
          <dd>
            {a.last_seen_at ? (
              <time dateTime={a.last_seen_at} title={formatTime(a.last_seen_at)}>
                {lastSeenText(a, t('time.never'))}
              </time>
            ) : (
              t('time.never')
            )}
          </dd>
        </div>
        {a.agent?.connected_at && (
          <div>
            <dt>{t('overview.connectedSince')}</dt>
            <dd>
              <time dateTime={a.agent.connected_at}>{formatTime(a.agent.connected_at)}</time>
            </dd>
          </div>
        )}
        <div>
          <dt>{t('overview.platform')}</dt>
          <dd>{t('asset.platform', { platform: a.platform })}</dd>
        </div>
        <div>
          <dt>{t('overview.hostname')}</dt>
          <dd translate="no">{a.hostname ?? '—'}</dd>
        </div>
        <div>
          <dt>{t('overview.ipAddresses')}</dt>
          <dd translate="no">{a.ip_addresses.length > 0 ? a.ip_addresses.join(', ') : '—'}</dd>
        </div>
        <div>
          <dt>{t('overview.macAddress')}</dt>
          <dd translate="no">{a.mac_address ?? '—'}</dd>
        </div>
        <div>
          <dt>{t('overview.tags')}</dt>
          <dd translate="no">{a.tags.length > 0 ? a.tags.join(', ') : '—'}</dd>
        </div>
        <div>
          <dt>{t('overview.source')}</dt>
          <dd>{t('overview.sourceValue', { source: a.source })}</dd>
        </div>
        <div>
          <dt>{t('overview.added')}</dt>
          <dd>
            <time dateTime={a.created_at}>{formatTime(a.created_at)}</time>
          </dd>
        </div>
      </dl>
      {a.description && (
        <p className="description" translate="no">
          {a.description}
        </p>
      )}
      {a.hub_host && <p className="muted small">{t('overview.hubHost')}</p>}
      <BlastRadiusPanel assetId={a.id} />
      {canMutate && <PowerPanel asset={a} />}
    </div>
  );
}
