/**
 * Alerts and incidents: acknowledge, silence (an hour) or resolve, each a quick action that needs the device
 * owner (WebAuthn with user verification) and goes to the hub with its proof.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Alert, Incident } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { useT } from '../../i18n/I18nProvider';
import { DeviceOwnerGate } from './DeviceOwnerGate';
import { HubNameNotice } from './HubNameNotice';
import { loadSnapshot } from './fleet-snapshot';

function AlertRow({ alert, canAct }: { alert: Alert; canAct: boolean }) {
  const { t } = useT();
  const client = useQueryClient();
  const act = (action: 'alert.acknowledge' | 'alert.silence') => async (proof: string | null) => {
    await hub.call('mobile.quickAction', { body: { action, id: alert.id, proof: proof ?? '' } });
    await client.invalidateQueries({ queryKey: ['mobile'] });
  };
  return (
    <li className={`m-card m-sev-${alert.severity}`}>
      <div>
        <strong translate="no">{alert.asset_name}</strong>{' '}
        <span className="m-muted">{t('alert.severity', { severity: alert.severity })}</span>
      </div>
      <div translate="no">{alert.summary}</div>
      <div className="m-muted">{t('alert.status', { status: alert.status })}</div>
      {canAct && alert.status === 'firing' ? (
        <div className="m-actions">
          <DeviceOwnerGate
            purpose={`quick-action:alert.acknowledge:${alert.id}`}
            label={t('mobile.acknowledge')}
            required
            onVerified={act('alert.acknowledge')}
          />
          <DeviceOwnerGate
            purpose={`quick-action:alert.silence:${alert.id}`}
            label={t('mobile.silenceHour')}
            required
            onVerified={act('alert.silence')}
          />
        </div>
      ) : null}
    </li>
  );
}

function IncidentRow({ incident, canAct }: { incident: Incident; canAct: boolean }) {
  const { t } = useT();
  const client = useQueryClient();
  return (
    <li className={`m-card m-sev-${incident.severity}`}>
      <div>
        <strong translate="no">{incident.title}</strong>{' '}
        <span className="m-muted">{t('alert.severity', { severity: incident.severity })}</span>
      </div>
      <div className="m-muted">
        {t('mobile.incidentAlerts', { active: incident.active_alerts, total: incident.alert_count })}
      </div>
      {canAct ? (
        <div className="m-actions">
          <DeviceOwnerGate
            purpose={`quick-action:incident.resolve:${incident.id}`}
            label={t('mobile.resolve')}
            required
            onVerified={async (proof) => {
              await hub.call('mobile.quickAction', {
                body: { action: 'incident.resolve', id: incident.id, proof: proof ?? '' },
              });
              await client.invalidateQueries({ queryKey: ['mobile'] });
            }}
          />
        </div>
      ) : null}
    </li>
  );
}

export function AlertsScreen({ stale }: { stale: boolean }) {
  const { t } = useT();
  const { canMutate } = useSession();
  const alerts = useQuery({
    queryKey: ['mobile', 'alerts'],
    enabled: !stale,
    queryFn: async () => (await hub.call('alerts.list', { query: { status: 'active', per_page: 100 } })).data,
    placeholderData: () => loadSnapshot()?.alerts,
  });
  const incidents = useQuery({
    queryKey: ['mobile', 'incidents'],
    enabled: !stale,
    queryFn: async () => (await hub.call('incidents.list', { query: { status: 'open', per_page: 50 } })).data,
  });
  const canAct = canMutate && !stale;
  return (
    <section aria-labelledby="m-alerts-title" className={stale ? 'm-stale' : undefined}>
      <h1 id="m-alerts-title">{t('mobile.alerts')}</h1>
      {canAct ? <HubNameNotice what="quickAction" /> : null}
      <h2>{t('mobile.openIncidents')}</h2>
      {incidents.data && incidents.data.length > 0 ? (
        <ul className="m-list" aria-label={t('mobile.openIncidents')}>
          {incidents.data.map((incident) => (
            <IncidentRow key={incident.id} incident={incident} canAct={canAct} />
          ))}
        </ul>
      ) : (
        <p className="m-muted">{t('mobile.noIncident')}</p>
      )}
      <h2>{t('mobile.activeAlerts')}</h2>
      {alerts.data && alerts.data.length > 0 ? (
        <ul className="m-list" aria-label={t('mobile.activeAlerts')}>
          {alerts.data.map((alert) => (
            <AlertRow key={alert.id} alert={alert} canAct={canAct} />
          ))}
        </ul>
      ) : (
        <p className="m-muted">{t('mobile.noAlert')}</p>
      )}
    </section>
  );
}
