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
import { formatBytes, formatTime } from '../../../components/units';
import { AgentAnswer } from '../AgentAnswer';
import { assetPartKey } from '../asset-keys';
import type { AssetTabProps } from '../asset-tabs';

type Signal = (typeof signals)[number];

const columns: RowsColumn<ProcessInfo>[] = [
  { key: 'pid', label: 'PID', cell: (p) => p.pid, sortValue: (p) => p.pid, className: 'cell-number' },
  { key: 'user', label: 'User', cell: (p) => p.user, sortValue: (p) => p.user },
  { key: 'name', label: 'Name', cell: (p) => p.name, sortValue: (p) => p.name },
  {
    key: 'cpu',
    label: 'CPU',
    cell: (p) => `${p.cpu_percent.toFixed(1)} %`,
    sortValue: (p) => p.cpu_percent,
    className: 'cell-number',
  },
  {
    key: 'memory',
    label: 'Memory',
    cell: (p) => formatBytes(p.memory_bytes),
    sortValue: (p) => p.memory_bytes,
    className: 'cell-number',
  },
  { key: 'state', label: 'State', cell: (p) => p.state, sortValue: (p) => p.state },
  {
    key: 'started',
    label: 'Started',
    cell: (p) => formatTime(p.started_at),
    sortValue: (p) => p.started_at ?? '',
  },
  {
    key: 'command',
    label: 'Command',
    cell: (p) => <code title={p.command}>{p.command}</code>,
    className: 'cell-wide',
  },
];

function KillDialog({
  assetId,
  process,
  onClose,
}: {
  assetId: string;
  process: ProcessInfo | null;
  onClose: () => void;
}) {
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
      title={`Send a signal to ${process?.name ?? 'the process'} (${process?.pid ?? ''})?`}
      confirmLabel={`Send ${signal}`}
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
        Signal
        <select
          value={signal}
          onChange={(e) => {
            setSignal(e.target.value as Signal);
          }}
        >
          {signals.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <p className="muted small">SIGTERM asks the process to end; SIGKILL ends it at once.</p>
      {kill.isError && <ErrorNotice error={kill.error} />}
    </ConfirmDialog>
  );
}

export function ProcessesTab({ asset }: AssetTabProps) {
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
            label="Processes"
            rows={data.processes}
            columns={columns}
            rowKey={(p) => String(p.pid)}
            filterText={(p) => `${p.pid} ${p.user} ${p.name} ${p.command}`}
            initialSort={{ key: 'cpu', descending: true }}
            emptyTitle="No processes"
            {...(canMutate
              ? {
                  actions: (p: ProcessInfo) => (
                    <button
                      type="button"
                      className="small danger"
                      aria-label={`Kill ${p.name} (${p.pid})`}
                      onClick={() => {
                        setKilling(p);
                      }}
                    >
                      Kill
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
