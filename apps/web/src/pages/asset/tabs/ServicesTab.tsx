/**
 * The asset's systemd services: state at a glance, and start, stop or restart after a confirmation that
 * names the service and the asset. The hub's answer (the state after the action) is shown.
 */
import { useQuery } from '@tanstack/react-query';
import type { ServiceInfo } from '@svc/protocol';
import { hub } from '../../../api/client';
import { useSession } from '../../../app/session';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';
import { DoneNotice, LifecycleButtons, LifecycleDialog, useLifecycleRequests } from './lifecycle-actions';

const actionRoute = {
  start: 'system.startService',
  stop: 'system.stopService',
  restart: 'system.restartService',
} as const;

function stateClass(s: ServiceInfo): string {
  if (s.active_state === 'active') return 'state-ok';
  if (s.active_state === 'failed') return 'state-bad';
  return 'state-idle';
}

const columns: RowsColumn<ServiceInfo>[] = [
  { key: 'name', label: 'Service', cell: (s) => s.name, sortValue: (s) => s.name },
  {
    key: 'state',
    label: 'State',
    cell: (s) => (
      <span className={stateClass(s)}>
        {s.active_state} <span className="muted">({s.sub_state})</span>
      </span>
    ),
    sortValue: (s) => s.active_state,
  },
  {
    key: 'enabled',
    label: 'At boot',
    cell: (s) => (s.enabled === null ? '—' : s.enabled ? 'enabled' : 'disabled'),
    sortValue: (s) => String(s.enabled),
  },
  { key: 'description', label: 'Description', cell: (s) => s.description, className: 'cell-wide' },
];

export function ServicesTab({ asset }: AssetTabProps) {
  const { canMutate } = useSession();
  const requests = useLifecycleRequests<ServiceInfo>();
  const services = useQuery({
    queryKey: assetPartKey(asset.id, 'services'),
    queryFn: async () => (await hub.call('system.services', { params: { id: asset.id } })).data,
  });
  return (
    <>
      <DoneNotice done={requests.done} />
      <AgentAnswer query={services} what="services">
        {(data) => (
          <RowsTable
            label="Services"
            rows={data.services}
            columns={columns}
            rowKey={(s) => s.name}
            filterText={(s) => `${s.name} ${s.description} ${s.active_state}`}
            initialSort={{ key: 'name', descending: false }}
            emptyTitle={
              data.manager === 'none' ? 'This host has no service manager (systemd)' : 'No services'
            }
            {...(canMutate
              ? {
                  actions: (s: ServiceInfo) => (
                    <span className="row-buttons">
                      <LifecycleButtons
                        name={s.name}
                        actions={['start', 'stop', 'restart']}
                        onAsk={(action) => {
                          requests.ask(s, action);
                        }}
                      />
                    </span>
                  ),
                }
              : {})}
          />
        )}
      </AgentAnswer>
      {canMutate && (
        <LifecycleDialog
          assetName={asset.name}
          noun="service"
          nameOf={(service: ServiceInfo) => service.name}
          pending={requests.pending}
          call={async ({ target, action }) =>
            (await hub.call(actionRoute[action], { params: { id: asset.id, name: target.name } })).data
          }
          invalidates={[assetPartKey(asset.id, 'services')]}
          doneText={(result) => `${result.name}: ${result.action} done, now ${result.active_state}`}
          consequence={{
            start: 'The service is started now; whether it starts at boot does not change.',
            stop: 'The service stops now, and whatever it serves stops answering until it is started again.',
            restart: 'The service stops and starts again; what it serves is briefly unavailable.',
          }}
          onClose={requests.finish}
        />
      )}
    </>
  );
}
