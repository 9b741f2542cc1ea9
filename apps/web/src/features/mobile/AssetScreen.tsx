/**
 * An asset: its status, recent metrics, a saved action to run (queued while the hub is unreachable, when
 * `queueOfflineActions` is on), power (reboot, shutdown, each confirmed), and a terminal or a desktop behind
 * the device-owner gate.
 */
import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { errorText, hub } from '../../api/client';
import { useSession } from '../../app/session';
import { useChartZone } from '../../components/chart-zone';
import { MiniChart } from '../../components/MiniChart';
import { formatPercent } from '../../components/units';
import { updateConnection } from './connection';
import { currentSettings } from './device';
import { loadSnapshot } from './fleet-snapshot';
import {
  isUnreachable,
  onQueueChange,
  queuedRuns,
  queueRun,
  replayQueue,
  type QueuedRun,
} from './offline-queue';
import { RemoteSessions } from './RemoteSessions';

function useQueue(): QueuedRun[] {
  const [runs, setRuns] = useState<QueuedRun[]>([]);
  useEffect(() => {
    const load = () => {
      void queuedRuns().then(setRuns, () => undefined);
    };
    load();
    return onQueueChange(load);
  }, []);
  return runs;
}

const actionsKey = 'svc.mobile.actions';

function cachedActions(): { id: string; name: string }[] | undefined {
  try {
    return JSON.parse(localStorage.getItem(actionsKey) ?? 'null') as
      { id: string; name: string }[] | undefined;
  } catch {
    return undefined;
  }
}

function ActionRunner({ stale }: { stale: boolean }) {
  const [outcome, setOutcome] = useState<string | null>(null);
  const actions = useQuery({
    queryKey: ['mobile', 'actions'],
    enabled: !stale,
    queryFn: async () => {
      const { data } = await hub.call('actions.list', { query: { per_page: 100 } });
      // Kept with the fleet state (cleared at sign-out): runs can be queued while offline.
      localStorage.setItem(actionsKey, JSON.stringify(data.map((a) => ({ id: a.id, name: a.name }))));
      return data.map((a) => ({ id: a.id, name: a.name }));
    },
    placeholderData: cachedActions,
  });
  const queue = useQueue();
  const run = async (id: string, name: string) => {
    setOutcome(null);
    const settings = currentSettings();
    if (stale || !navigator.onLine) {
      if (!settings.queueOfflineActions) {
        setOutcome('The hub is unreachable and offline queueing is off.');
        return;
      }
      await queueRun(id, name);
      setOutcome(`${name}: queued until the hub is reachable`);
      return;
    }
    try {
      const { data } = await hub.call('actions.run', { params: { id } });
      setOutcome(`${name}: ${String(data.summary.ok)} of ${String(data.summary.total)} ok`);
    } catch (error) {
      // The hub did not answer: the app shows its last known state until it does again.
      if (isUnreachable(error)) updateConnection({ reachable: false });
      if (isUnreachable(error) && settings.queueOfflineActions) {
        await queueRun(id, name);
        setOutcome(`${name}: queued until the hub is reachable`);
      } else setOutcome(`${name}: ${errorText(error)}`);
    }
  };
  const names = actions.data ?? [];
  return (
    <section aria-labelledby="m-actions-title">
      <h2 id="m-actions-title">Saved actions</h2>
      {names.length === 0 && !stale ? <p className="m-muted">No saved action.</p> : null}
      <ul className="m-list">
        {names.map((action) => (
          <li key={action.id} className="m-row">
            <span>{action.name}</span>
            <button type="button" onClick={() => void run(action.id, action.name)}>
              Run {action.name}
            </button>
          </li>
        ))}
      </ul>
      {stale && names.length === 0 ? (
        <p className="m-muted">Actions load when the hub is reachable.</p>
      ) : null}
      {outcome ? <p role="status">{outcome}</p> : null}
      {queue.length > 0 ? (
        <>
          <h3>Queued on this device</h3>
          <ul className="m-list" aria-label="Queued actions">
            {queue.map((entry) => (
              <li key={entry.key} className={`m-row m-queue-${entry.state}`}>
                <span>{entry.actionName}</span>
                <span>
                  {entry.state}
                  {entry.note ? `: ${entry.note}` : ''}
                </span>
              </li>
            ))}
          </ul>
          {!stale ? (
            <button type="button" onClick={() => void replayQueue()}>
              Send queued now
            </button>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function Power({ assetId }: { assetId: string }) {
  const [note, setNote] = useState<string | null>(null);
  const send = async (kind: 'reboot' | 'shutdown') => {
    if (!window.confirm(`${kind === 'reboot' ? 'Reboot' : 'Shut down'} this asset?`)) return;
    try {
      await hub.call(kind === 'reboot' ? 'power.reboot' : 'power.shutdown', { params: { id: assetId } });
      setNote(`${kind} requested`);
    } catch (error) {
      setNote(errorText(error));
    }
  };
  return (
    <section aria-labelledby="m-power-title">
      <h2 id="m-power-title">Power</h2>
      <div className="m-actions">
        <button type="button" onClick={() => void send('reboot')}>
          Reboot
        </button>
        <button type="button" onClick={() => void send('shutdown')}>
          Shut down
        </button>
      </div>
      {note ? <p role="status">{note}</p> : null}
    </section>
  );
}

export function AssetScreen({ stale }: { stale: boolean }) {
  const { id = '' } = useParams();
  const { canMutate } = useSession();
  const asset = useQuery({
    queryKey: ['mobile', 'asset', id],
    enabled: !stale,
    queryFn: async () => (await hub.call('assets.get', { params: { id } })).data,
    placeholderData: () => loadSnapshot()?.assets.find((a) => a.id === id),
  });
  const metrics = useQuery({
    queryKey: ['mobile', 'metrics', id],
    enabled: !stale,
    queryFn: async () => {
      const to = Date.now();
      const { data } = await hub.call('metrics.history', {
        params: { id },
        query: { from: new Date(to - 3_600_000).toISOString(), limit: 120 },
      });
      return { samples: data.samples, from: (to - 3_600_000) / 1000, to: to / 1000 };
    },
  });
  const zone = useChartZone();
  const data = asset.data;
  if (!data) return <p className="m-muted">{asset.isError ? errorText(asset.error) : 'Loading…'}</p>;
  const samples = metrics.data?.samples ?? [];
  const last = samples.at(-1);
  return (
    <section aria-labelledby="m-asset-title" className={stale ? 'm-stale' : undefined}>
      <h1 id="m-asset-title">{data.name}</h1>
      <p>
        <span className={`m-dot m-dot-${data.status}`} aria-hidden="true" /> {data.status}
        {data.last_seen_at ? (
          <span className="m-muted"> · seen {new Date(data.last_seen_at).toLocaleString()}</span>
        ) : null}
      </p>
      <section aria-labelledby="m-metrics-title">
        <h2 id="m-metrics-title">Metrics (last hour)</h2>
        {last ? (
          <>
            <p>
              CPU {last.cpu_percent.toFixed(0)} % · memory{' '}
              {((last.memory_used_bytes / Math.max(1, last.memory_total_bytes)) * 100).toFixed(0)} %
            </p>
            <MiniChart
              times={samples.map((s) => Date.parse(s.ts) / 1000)}
              values={samples.map((s) => s.cpu_percent)}
              from={metrics.data?.from ?? 0}
              to={metrics.data?.to ?? 0}
              max={100}
              format={formatPercent}
              unit="%"
              label="CPU, last hour"
              zone={zone}
            />
          </>
        ) : (
          <p className="m-muted">No samples.</p>
        )}
      </section>
      {canMutate ? (
        <>
          <ActionRunner stale={stale} />
          {!stale ? <Power assetId={data.id} /> : null}
          {!stale ? <RemoteSessions assetId={data.id} assetName={data.name} /> : null}
        </>
      ) : null}
    </section>
  );
}
