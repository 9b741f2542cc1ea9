/**
 * Alerts and incidents: acknowledge, silence (an hour) or resolve, each a quick action that needs the device
 * owner (WebAuthn with user verification) and goes to the hub with its proof.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Alert, Incident } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { DeviceOwnerGate } from './DeviceOwnerGate';
import { HubNameNotice } from './HubNameNotice';
import { loadSnapshot } from './fleet-snapshot';

function AlertRow({ alert, canAct }: { alert: Alert; canAct: boolean }) {
  const client = useQueryClient();
  const act = (action: 'alert.acknowledge' | 'alert.silence') => async (proof: string | null) => {
    await hub.call('mobile.quickAction', { body: { action, id: alert.id, proof: proof ?? '' } });
    await client.invalidateQueries({ queryKey: ['mobile'] });
  };
  return (
    <li className={`m-card m-sev-${alert.severity}`}>
      <div>
        <strong>{alert.asset_name}</strong> <span className="m-muted">{alert.severity}</span>
      </div>
      <div>{alert.summary}</div>
      <div className="m-muted">{alert.status}</div>
      {canAct && alert.status === 'firing' ? (
        <div className="m-actions">
          <DeviceOwnerGate
            purpose={`quick-action:alert.acknowledge:${alert.id}`}
            label="Acknowledge"
            required
            onVerified={act('alert.acknowledge')}
          />
          <DeviceOwnerGate
            purpose={`quick-action:alert.silence:${alert.id}`}
            label="Silence 1 h"
            required
            onVerified={act('alert.silence')}
          />
        </div>
      ) : null}
    </li>
  );
}

function IncidentRow({ incident, canAct }: { incident: Incident; canAct: boolean }) {
  const client = useQueryClient();
  return (
    <li className={`m-card m-sev-${incident.severity}`}>
      <div>
        <strong>{incident.title}</strong> <span className="m-muted">{incident.severity}</span>
      </div>
      <div className="m-muted">
        {incident.active_alerts} active of {incident.alert_count} alerts
      </div>
      {canAct ? (
        <div className="m-actions">
          <DeviceOwnerGate
            purpose={`quick-action:incident.resolve:${incident.id}`}
            label="Resolve"
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
      <h1 id="m-alerts-title">Alerts</h1>
      {canAct ? <HubNameNotice what="a quick action" /> : null}
      <h2>Open incidents</h2>
      {incidents.data && incidents.data.length > 0 ? (
        <ul className="m-list" aria-label="Open incidents">
          {incidents.data.map((incident) => (
            <IncidentRow key={incident.id} incident={incident} canAct={canAct} />
          ))}
        </ul>
      ) : (
        <p className="m-muted">No open incident.</p>
      )}
      <h2>Active alerts</h2>
      {alerts.data && alerts.data.length > 0 ? (
        <ul className="m-list" aria-label="Active alerts">
          {alerts.data.map((alert) => (
            <AlertRow key={alert.id} alert={alert} canAct={canAct} />
          ))}
        </ul>
      ) : (
        <p className="m-muted">No active alert.</p>
      )}
    </section>
  );
}
