/**
 * Virtualization (Proxmox VE): the cluster's quorum and nodes, every VM and container with start/stop (the
 * task followed to its end, its result shown), storage, and Ceph health when the cluster has it.
 */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { VirtResource, VirtTaskResult } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { formatBytes } from '../../components/units';
import './virt.css';

const virtKey = ['virt'] as const;

function percent(part: number | null, whole: number | null): string {
  if (part === null || whole === null || whole === 0) return '—';
  return `${((part / whole) * 100).toFixed(0)}%`;
}

function GuestActions({ guest }: { guest: VirtResource }) {
  const client = useQueryClient();
  const [result, setResult] = useState<VirtTaskResult | null>(null);
  const action = useMutation({
    mutationFn: async (verb: 'start' | 'stop') => {
      const params = { id: guest.asset_id ?? '' };
      return verb === 'start'
        ? (await hub.call('virt.start', { params })).data
        : (await hub.call('virt.stop', { params })).data;
    },
    onSuccess: async (answer) => {
      setResult(answer);
      await client.invalidateQueries({ queryKey: virtKey });
    },
    onError: () => {
      setResult(null);
    },
  });
  if (guest.asset_id === null || guest.template) return null;
  const running = guest.status === 'running';
  return (
    <div className="row-actions">
      <button
        type="button"
        disabled={action.isPending}
        aria-label={`${running ? 'Stop' : 'Start'} ${guest.name}`}
        onClick={() => {
          action.mutate(running ? 'stop' : 'start');
        }}
      >
        {action.isPending ? 'Waiting for the task…' : running ? 'Stop' : 'Start'}
      </button>
      {result && (
        <span role="status" className="muted">
          Task {result.action} ended {result.exitstatus} ({(result.duration_ms / 1000).toFixed(1)} s)
        </span>
      )}
      {action.isError && <ErrorNotice error={action.error} />}
    </div>
  );
}

function Ceph() {
  const ceph = useQuery({
    queryKey: [...virtKey, 'ceph'],
    queryFn: async () => (await hub.call('virt.ceph', { query: {} })).data,
    retry: false,
  });
  if (ceph.isPending) return <Loading label="Loading Ceph status" />;
  if (ceph.isError) {
    return (
      <p className="muted" role="note">
        Ceph: not available ({ceph.error.message})
      </p>
    );
  }
  const c = ceph.data;
  return (
    <section aria-labelledby="ceph-title" className="virt-panel">
      <h2 id="ceph-title">
        Ceph <span className={`ceph-health ceph-${c.health.toLowerCase()}`}>{c.health}</span>
      </h2>
      <ul className="virt-facts">
        {c.osds && (
          <li>
            OSDs: {c.osds.up}/{c.osds.total} up, {c.osds.in} in
          </li>
        )}
        {c.pgs && <li>PGs: {c.pgs.states.map((s) => `${String(s.count)} ${s.name}`).join(', ')}</li>}
        {c.usage && (
          <li>
            Used {formatBytes(c.usage.used)} of {formatBytes(c.usage.total)}
          </li>
        )}
        {c.monitors !== null && <li>Monitors: {c.monitors}</li>}
        {c.checks.map((check) => (
          <li key={check.name} className="field-error">
            {check.name}: {check.summary}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function VirtPage() {
  const { canMutate } = useSession();
  const status = useQuery({
    queryKey: [...virtKey, 'status'],
    queryFn: async () => (await hub.call('virt.clusterStatus', { query: {} })).data,
    retry: false,
  });
  const resources = useQuery({
    queryKey: [...virtKey, 'resources'],
    queryFn: async () => (await hub.call('virt.clusterResources', { query: { per_page: 500 } })).data,
    refetchInterval: 15_000,
  });
  const guests = resources.data?.filter((r) => r.type === 'qemu' || r.type === 'lxc') ?? [];
  const storage = resources.data?.filter((r) => r.type === 'storage') ?? [];
  return (
    <section className="page" aria-labelledby="virt-title">
      <div className="page-header">
        <h1 id="virt-title">Virtualization</h1>
        {status.isSuccess && (
          <span className="muted">
            {status.data.cluster
              ? `Cluster ${status.data.cluster.name}: ${status.data.cluster.quorate ? 'quorate' : 'NOT quorate'}`
              : 'Standalone node'}
          </span>
        )}
      </div>
      {status.isPending && <Loading label="Loading cluster status" />}
      {status.isError && <ErrorNotice error={status.error} retry={() => void status.refetch()} />}
      {status.isSuccess && (
        <ul className="virt-nodes" aria-label="Nodes">
          {status.data.nodes.map((n) => (
            <li key={n.name} className={n.online ? 'node-online' : 'node-offline'}>
              <strong>{n.name}</strong> {n.online ? 'online' : 'offline'}
              {n.ip && <span className="muted"> {n.ip}</span>}
            </li>
          ))}
        </ul>
      )}
      {resources.isPending && <Loading label="Loading resources" />}
      {resources.isError && <ErrorNotice error={resources.error} retry={() => void resources.refetch()} />}
      {resources.isSuccess && resources.data.length === 0 && (
        <EmptyState title="Nothing to show">
          <p>Add a Proxmox VE connector (Admin → Connectors) to see its VMs and containers here.</p>
        </EmptyState>
      )}
      {guests.length > 0 && (
        <div className="rows-scroll">
          <table className="data-table" aria-label="Guests">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">VMID</th>
                <th scope="col">Node</th>
                <th scope="col">Status</th>
                <th scope="col">CPU</th>
                <th scope="col">Memory</th>
                {canMutate && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {guests.map((g) => (
                <tr key={`${g.connector_id}:${g.id}`}>
                  <th scope="row">
                    {g.name}
                    {g.template && <span className="muted"> (template)</span>}
                  </th>
                  <td>{g.type === 'qemu' ? 'VM' : 'Container'}</td>
                  <td className="cell-number">{g.vmid ?? '—'}</td>
                  <td>{g.node ?? '—'}</td>
                  <td>
                    <span className={`guest-${g.status}`}>{g.status}</span>
                  </td>
                  <td className="cell-number">{g.cpu === null ? '—' : `${(g.cpu * 100).toFixed(1)}%`}</td>
                  <td className="cell-number">{percent(g.mem, g.maxmem)}</td>
                  {canMutate && (
                    <td>
                      <GuestActions guest={g} />
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {storage.length > 0 && (
        <div className="rows-scroll">
          <table className="data-table" aria-label="Storage">
            <thead>
              <tr>
                <th scope="col">Storage</th>
                <th scope="col">Node</th>
                <th scope="col">Status</th>
                <th scope="col">Used</th>
                <th scope="col">Size</th>
              </tr>
            </thead>
            <tbody>
              {storage.map((s) => (
                <tr key={`${s.connector_id}:${s.id}`}>
                  <th scope="row">
                    {s.name}
                    {s.shared && <span className="muted"> (shared)</span>}
                  </th>
                  <td>{s.node ?? '—'}</td>
                  <td>{s.status}</td>
                  <td className="cell-number">{percent(s.disk, s.maxdisk)}</td>
                  <td className="cell-number">{s.maxdisk === null ? '—' : formatBytes(s.maxdisk)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {status.isSuccess && <Ceph />}
    </section>
  );
}
