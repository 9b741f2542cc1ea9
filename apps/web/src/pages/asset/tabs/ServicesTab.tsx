/**
 * The asset's systemd services: state at a glance, and start, stop or restart after a confirmation that
 * names the service and the asset. The hub's answer (the state after the action) is shown.
 */
import { useQuery } from '@tanstack/react-query';
import type { ServiceInfo } from '@svc/protocol';
import { hub } from '../../../api/client';
import { useSession } from '../../../app/session';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { useT, type I18n } from '../../../i18n/I18nProvider';
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

/** systemd's states and the unit's own description are the host's words: data, not translated. */
function columnsOf(t: I18n['t']): RowsColumn<ServiceInfo>[] {
  return [
    {
      key: 'name',
      label: t('assetTabs.service'),
      cell: (s) => <span translate="no">{s.name}</span>,
      sortValue: (s) => s.name,
    },
    {
      key: 'state',
      label: t('assetTabs.state'),
      cell: (s) => (
        <span className={stateClass(s)} translate="no">
          {s.active_state} <span className="muted">({s.sub_state})</span>
        </span>
      ),
      sortValue: (s) => s.active_state,
    },
    {
      key: 'enabled',
      label: t('assetTabs.atBoot'),
      cell: (s) => (s.enabled === null ? '—' : t('assetTabs.enabled', { enabled: s.enabled ? 'yes' : 'no' })),
      sortValue: (s) => String(s.enabled),
    },
    {
      key: 'description',
      label: t('assetTabs.description'),
      cell: (s) => <span translate="no">{s.description}</span>,
      className: 'cell-wide',
    },
  ];
}

export function ServicesTab({ asset }: AssetTabProps) {
  const { t } = useT();
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
            label={t('assetTabs.services')}
            rows={data.services}
            columns={columnsOf(t)}
            rowKey={(s) => s.name}
            filterText={(s) => `${s.name} ${s.description} ${s.active_state}`}
            initialSort={{ key: 'name', descending: false }}
            emptyTitle={t(data.manager === 'none' ? 'assetTabs.noServiceManager' : 'assetTabs.noServices')}
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
          kind="service"
          nameOf={(service: ServiceInfo) => service.name}
          pending={requests.pending}
          call={async ({ target, action }) =>
            (await hub.call(actionRoute[action], { params: { id: asset.id, name: target.name } })).data
          }
          invalidates={[assetPartKey(asset.id, 'services')]}
          doneText={(result) =>
            t('assetTabs.actionDone', {
              name: result.name,
              action: result.action,
              state: result.active_state,
            })
          }
          consequence={{
            start: t('assetTabs.serviceConsequence', { action: 'start' }),
            stop: t('assetTabs.serviceConsequence', { action: 'stop' }),
            restart: t('assetTabs.serviceConsequence', { action: 'restart' }),
          }}
          onClose={requests.finish}
        />
      )}
    </>
  );
}
