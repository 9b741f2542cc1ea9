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
import { formatBytes, formatDuration, formatNumber } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import './virt.css';

const virtKey = ['virt'] as const;

function percent(part: number | null, whole: number | null): string {
  if (part === null || whole === null || whole === 0) return '—';
  return `${formatNumber((part / whole) * 100)}%`;
}

function GuestActions({ guest }: { guest: VirtResource }) {
  const { t } = useT();
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
        aria-label={t('virt.guestAction', { verb: running ? 'stop' : 'start', name: guest.name })}
        onClick={() => {
          action.mutate(running ? 'stop' : 'start');
        }}
      >
        {action.isPending ? t('virt.waitingTask') : running ? t('virt.stop') : t('virt.start')}
      </button>
      {result && (
        <span role="status" className="muted">
          {t('virt.taskEnded', {
            action: result.action,
            status: result.exitstatus,
            duration: formatDuration(result.duration_ms),
          })}
        </span>
      )}
      {action.isError && <ErrorNotice error={action.error} />}
    </div>
  );
}

function Ceph() {
  const { t } = useT();
  const ceph = useQuery({
    queryKey: [...virtKey, 'ceph'],
    queryFn: async () => (await hub.call('virt.ceph', { query: {} })).data,
    retry: false,
  });
  if (ceph.isPending) return <Loading label={t('virt.loadingCeph')} />;
  if (ceph.isError) {
    return (
      <p className="muted" role="note">
        {t('virt.cephUnavailable', { message: ceph.error.message })}
      </p>
    );
  }
  const c = ceph.data;
  return (
    <section aria-labelledby="ceph-title" className="virt-panel">
      <h2 id="ceph-title" translate="no">
        Ceph <span className={`ceph-health ceph-${c.health.toLowerCase()}`}>{c.health}</span>
      </h2>
      <ul className="virt-facts">
        {c.osds && <li>{t('virt.osds', { up: c.osds.up, total: c.osds.total, in: c.osds.in })}</li>}
        {c.pgs && (
          <li>
            {t('virt.pgs', {
              states: c.pgs.states.map((s) => `${formatNumber(s.count)} ${s.name}`).join(', '),
            })}
          </li>
        )}
        {c.usage && (
          <li>
            {t('virt.cephUsed', { used: formatBytes(c.usage.used), total: formatBytes(c.usage.total) })}
          </li>
        )}
        {c.monitors !== null && <li>{t('virt.monitors', { monitors: c.monitors })}</li>}
        {c.checks.map((check) => (
          <li key={check.name} className="field-error" translate="no">
            {check.name}: {check.summary}
          </li>
        ))}
      </ul>
    </section>
  );
}

export function VirtPage() {
  const { t } = useT();
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
        <h1 id="virt-title">{t('nav.virt')}</h1>
        {status.isSuccess && (
          <span className="muted">
            {status.data.cluster
              ? t('virt.cluster', {
                  name: status.data.cluster.name,
                  quorate: status.data.cluster.quorate ? 'yes' : 'no',
                })
              : t('virt.standalone')}
          </span>
        )}
      </div>
      {status.isPending && <Loading label={t('virt.loadingStatus')} />}
      {status.isError && <ErrorNotice error={status.error} retry={() => void status.refetch()} />}
      {status.isSuccess && (
        <ul className="virt-nodes" aria-label={t('virt.nodes')}>
          {status.data.nodes.map((n) => (
            <li key={n.name} className={n.online ? 'node-online' : 'node-offline'}>
              <strong translate="no">{n.name}</strong>{' '}
              {t('virt.nodeState', { online: n.online ? 'yes' : 'no' })}
              {n.ip && (
                <span className="muted" translate="no">
                  {' '}
                  {n.ip}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {resources.isPending && <Loading label={t('virt.loadingResources')} />}
      {resources.isError && <ErrorNotice error={resources.error} retry={() => void resources.refetch()} />}
      {resources.isSuccess && resources.data.length === 0 && (
        <EmptyState title={t('virt.nothing')}>
          <p>{t('virt.nothingText')}</p>
        </EmptyState>
      )}
      {guests.length > 0 && (
        <div className="rows-scroll">
          <table className="data-table" aria-label={t('virt.guests')}>
            <thead>
              <tr>
                <th scope="col">{t('virt.name')}</th>
                <th scope="col">{t('virt.type')}</th>
                <th scope="col">{t('virt.vmid')}</th>
                <th scope="col">{t('virt.node')}</th>
                <th scope="col">{t('virt.status')}</th>
                <th scope="col">{t('virt.cpu')}</th>
                <th scope="col">{t('virt.memory')}</th>
                {canMutate && <th scope="col">{t('common.actions')}</th>}
              </tr>
            </thead>
            <tbody>
              {guests.map((g) => (
                <tr key={`${g.connector_id}:${g.id}`}>
                  <th scope="row">
                    <span translate="no">{g.name}</span>
                    {g.template && <span className="muted">{t('virt.template')}</span>}
                  </th>
                  <td>{t('virt.guestType', { type: g.type })}</td>
                  <td className="cell-number">{g.vmid ?? '—'}</td>
                  <td translate="no">{g.node ?? '—'}</td>
                  <td>
                    <span className={`guest-${g.status}`}>{t('virt.guestStatus', { status: g.status })}</span>
                  </td>
                  <td className="cell-number">{g.cpu === null ? '—' : `${formatNumber(g.cpu * 100, 1)}%`}</td>
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
          <table className="data-table" aria-label={t('virt.storage')}>
            <thead>
              <tr>
                <th scope="col">{t('virt.storage')}</th>
                <th scope="col">{t('virt.node')}</th>
                <th scope="col">{t('virt.status')}</th>
                <th scope="col">{t('virt.used')}</th>
                <th scope="col">{t('virt.size')}</th>
              </tr>
            </thead>
            <tbody>
              {storage.map((s) => (
                <tr key={`${s.connector_id}:${s.id}`}>
                  <th scope="row">
                    <span translate="no">{s.name}</span>
                    {s.shared && <span className="muted">{t('virt.shared')}</span>}
                  </th>
                  <td translate="no">{s.node ?? '—'}</td>
                  <td translate="no">{s.status}</td>
                  <td className="cell-number">{percent(s.disk, s.maxdisk)}</td>
                  <td className="cell-number" translate="no">
                    {s.maxdisk === null ? '—' : formatBytes(s.maxdisk)}
                  </td>
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
