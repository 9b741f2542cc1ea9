/**
 * The asset's processes, refreshed every 10 s while the tab is open; kill (any of the hub's signals) after a
 * confirmation that names the process. Command lines can hold secrets: a viewer gets the hub's 403.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { signals, type ProcessInfo } from '@svc/protocol';
import { hub } from '../../../api/client';
import { useSession } from '../../../app/session';
import { ConfirmDialog } from '../../../components/Dialog';
import { ErrorNotice } from '../../../components/ErrorNotice';
import { RowsTable, type RowsColumn } from '../../../components/RowsTable';
import { formatBytes, formatPercent, formatTime } from '../../../components/units';
import { useT, type I18n } from '../../../i18n/I18nProvider';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

type Signal = (typeof signals)[number];

function columnsOf(t: I18n['t']): RowsColumn<ProcessInfo>[] {
  return [
    {
      key: 'pid',
      label: t('assetTabs.pid'),
      cell: (p) => p.pid,
      sortValue: (p) => p.pid,
      className: 'cell-number',
    },
    {
      key: 'user',
      label: t('assetTabs.user'),
      cell: (p) => <span translate="no">{p.user}</span>,
      sortValue: (p) => p.user,
    },
    {
      key: 'name',
      label: t('assetTabs.name'),
      cell: (p) => <span translate="no">{p.name}</span>,
      sortValue: (p) => p.name,
    },
    {
      key: 'cpu',
      label: t('assetTabs.cpu'),
      cell: (p) => formatPercent(p.cpu_percent),
      sortValue: (p) => p.cpu_percent,
      className: 'cell-number',
    },
    {
      key: 'memory',
      label: t('assetTabs.memory'),
      cell: (p) => <span translate="no">{formatBytes(p.memory_bytes)}</span>,
      sortValue: (p) => p.memory_bytes,
      className: 'cell-number',
    },
    {
      key: 'state',
      label: t('assetTabs.state'),
      cell: (p) => <span translate="no">{p.state}</span>,
      sortValue: (p) => p.state,
    },
    {
      key: 'started',
      label: t('assetTabs.started'),
      cell: (p) => (p.started_at ? <time dateTime={p.started_at}>{formatTime(p.started_at)}</time> : '—'),
      sortValue: (p) => p.started_at ?? '',
    },
    {
      key: 'command',
      label: t('assetTabs.command'),
      cell: (p) => <code title={p.command}>{p.command}</code>,
      className: 'cell-wide',
    },
  ];
}

function KillDialog({
  assetId,
  process,
  onClose,
}: {
  assetId: string;
  process: ProcessInfo | null;
  onClose: () => void;
}) {
  const { t } = useT();
  const client = useQueryClient();
  const [signal, setSignal] = useState<Signal>('SIGTERM');
  const kill = useMutation({
    mutationFn: async (input: { pid: number; signal: Signal }) =>
      (await hub.call('system.killProcess', { params: { id: assetId }, body: input })).data,
    onSuccess: async () => {
      onClose();
      await client.invalidateQueries({ queryKey: assetPartKey(assetId, 'processes') });
    },
  });
  return (
    <ConfirmDialog
      open={process !== null}
      title={t('assetTabs.killTitle', { name: process?.name ?? '', pid: String(process?.pid ?? '') })}
      confirmLabel={t('assetTabs.sendSignal', { signal })}
      busy={kill.isPending}
      onConfirm={() => {
        if (process) kill.mutate({ pid: process.pid, signal });
      }}
      onClose={() => {
        kill.reset();
        setSignal('SIGTERM');
        onClose();
      }}
    >
      <p>
        <code className="break">{process?.command}</code>
      </p>
      <label>
        {t('assetTabs.signal')}
        <select
          value={signal}
          onChange={(e) => {
            setSignal(e.target.value as Signal);
          }}
        >
          {signals.map((s) => (
            <option key={s} value={s} translate="no">
              {s}
            </option>
          ))}
        </select>
      </label>
      <p className="muted small">{t('assetTabs.signalHint')}</p>
      {kill.isError && <ErrorNotice error={kill.error} />}
    </ConfirmDialog>
  );
}

export function ProcessesTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const { canMutate } = useSession();
  const [killing, setKilling] = useState<ProcessInfo | null>(null);
  const processes = useQuery({
    queryKey: assetPartKey(asset.id, 'processes'),
    queryFn: async () => (await hub.call('system.processes', { params: { id: asset.id } })).data,
    refetchInterval: (query) => (query.state.status === 'error' ? false : 10_000),
  });
  return (
    <>
      <AgentAnswer query={processes} what="processes">
        {(data) => (
          <RowsTable
            label={t('assetTabs.processes')}
            rows={data.processes}
            columns={columnsOf(t)}
            rowKey={(p) => String(p.pid)}
            filterText={(p) => `${p.pid} ${p.user} ${p.name} ${p.command}`}
            initialSort={{ key: 'cpu', descending: true }}
            emptyTitle={t('assetTabs.noProcesses')}
            {...(canMutate
              ? {
                  actions: (p: ProcessInfo) => (
                    <button
                      type="button"
                      className="small danger"
                      aria-label={t('assetTabs.killNamed', { name: p.name, pid: String(p.pid) })}
                      onClick={() => {
                        setKilling(p);
                      }}
                    >
                      {t('assetTabs.kill')}
                    </button>
                  ),
                }
              : {})}
          />
        )}
      </AgentAnswer>
      {canMutate && (
        <KillDialog
          assetId={asset.id}
          process={killing}
          onClose={() => {
            setKilling(null);
          }}
        />
      )}
    </>
  );
}
