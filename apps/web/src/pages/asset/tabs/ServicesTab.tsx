/**
 * The asset's systemd services: state at a glance, and start, stop or restart after a confirmation that
 * names the service and the asset. The hub's answer (the state after the action) is shown.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { ServiceInfo } from '@svc/protocol';
import { hub } from '../../../api/client';
import { useSession } from '../../../app/session';
import { ConfirmDialog } from '../../../components/Dialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

type ServiceAction = 'start' | 'stop' | 'restart';
const actionRoute = {
  start: 'system.startService',
  stop: 'system.stopService',
  restart: 'system.restartService',
} as const;
const actionLabel: Record<ServiceAction, string> = { start: 'Start', stop: 'Stop', restart: 'Restart' };

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

interface Pending {
  service: ServiceInfo;
  action: ServiceAction;
}

function ServiceActionDialog({
  asset,
  pending,
  onClose,
}: {
  asset: AssetTabProps['asset'];
  pending: Pending | null;
  onClose: (done?: string) => void;
}) {
  const client = useQueryClient();
  const run = useMutation({
    mutationFn: async ({ service, action }: Pending) =>
      (await hub.call(actionRoute[action], { params: { id: asset.id, name: service.name } })).data,
    onSuccess: async (result) => {
      onClose(`${result.name}: ${result.action} done, now ${result.active_state}`);
      await client.invalidateQueries({ queryKey: assetPartKey(asset.id, 'services') });
    },
  });
  const action = pending?.action ?? 'restart';
  return (
    <ConfirmDialog
      open={pending !== null}
      title={`${actionLabel[action]} ${pending?.service.name ?? 'the service'} on ${asset.name}?`}
      confirmLabel={`${actionLabel[action]} service`}
      busy={run.isPending}
      onConfirm={() => {
        if (pending) run.mutate(pending);
      }}
      onClose={() => {
        run.reset();
        onClose();
      }}
    >
      <p>
        {action === 'start'
          ? 'The service is started now; whether it starts at boot does not change.'
          : action === 'stop'
            ? 'The service stops now, and whatever it serves stops answering until it is started again.'
            : 'The service stops and starts again; what it serves is briefly unavailable.'}
      </p>
      {run.isError && <ErrorNotice error={run.error} />}
    </ConfirmDialog>
  );
}

export function ServicesTab({ asset }: AssetTabProps) {
  const { canMutate } = useSession();
  const [pending, setPending] = useState<Pending | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const services = useQuery({
    queryKey: assetPartKey(asset.id, 'services'),
    queryFn: async () => (await hub.call('system.services', { params: { id: asset.id } })).data,
  });
  const ask = (service: ServiceInfo, action: ServiceAction) => {
    setDone(null);
    setPending({ service, action });
  };
  return (
    <>
      {done && (
        <p className="notice ok" role="status">
          {done}
        </p>
      )}
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
                      {(['start', 'stop', 'restart'] as const).map((action) => (
                        <button
                          key={action}
                          type="button"
                          className={action === 'start' ? 'small' : 'small danger'}
                          aria-label={`${actionLabel[action]} ${s.name}`}
                          onClick={() => {
                            ask(s, action);
                          }}
                        >
                          {actionLabel[action]}
                        </button>
                      ))}
                    </span>
                  ),
                }
              : {})}
          />
        )}
      </AgentAnswer>
      {canMutate && (
        <ServiceActionDialog
          asset={asset}
          pending={pending}
          onClose={(message) => {
            setPending(null);
            if (message) setDone(message);
          }}
        />
      )}
    </>
  );
}
