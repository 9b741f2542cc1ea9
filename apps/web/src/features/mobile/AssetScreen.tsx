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
import { formatPercent, formatTime } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
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
  const { t } = useT();
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
        setOutcome(t('mobile.queueOff'));
        return;
      }
      await queueRun(id, name);
      setOutcome(t('mobile.queued', { name }));
      return;
    }
    try {
      const { data } = await hub.call('actions.run', { params: { id } });
      setOutcome(t('mobile.ranSummary', { name, ok: data.summary.ok, total: data.summary.total }));
    } catch (error) {
      // The hub did not answer: the app shows its last known state until it does again.
      if (isUnreachable(error)) updateConnection({ reachable: false });
      if (isUnreachable(error) && settings.queueOfflineActions) {
        await queueRun(id, name);
        setOutcome(t('mobile.queued', { name }));
      } else setOutcome(t('mobile.runFailed', { name, error: errorText(error) }));
    }
  };
  const names = actions.data ?? [];
  return (
    <section aria-labelledby="m-actions-title">
      <h2 id="m-actions-title">{t('mobile.savedActions')}</h2>
      {names.length === 0 && !stale ? <p className="m-muted">{t('mobile.noAction')}</p> : null}
      <ul className="m-list">
        {names.map((action) => (
          <li key={action.id} className="m-row">
            <span translate="no">{action.name}</span>
            <button type="button" onClick={() => void run(action.id, action.name)}>
              {t('mobile.runNamed', { name: action.name })}
            </button>
          </li>
        ))}
      </ul>
      {stale && names.length === 0 ? <p className="m-muted">{t('mobile.actionsLater')}</p> : null}
      {outcome ? <p role="status">{outcome}</p> : null}
      {queue.length > 0 ? (
        <>
          <h3>{t('mobile.queuedHere')}</h3>
          <ul className="m-list" aria-label={t('mobile.queuedActions')}>
            {queue.map((entry) => (
              <li key={entry.key} className={`m-row m-queue-${entry.state}`}>
                <span translate="no">{entry.actionName}</span>
                <span>
                  {t('mobile.queueState', { state: entry.state })}
                  {entry.ran ? (
                    `: ${t('mobile.queueRan', { ok: entry.ran.ok, total: entry.ran.total })}`
                  ) : entry.note ? (
                    <>
                      : <span translate="no">{entry.note}</span>
                    </>
                  ) : null}
                </span>
              </li>
            ))}
          </ul>
          {!stale ? (
            <button type="button" onClick={() => void replayQueue()}>
              {t('mobile.sendQueued')}
            </button>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function Power({ assetId }: { assetId: string }) {
  const { t } = useT();
  const [note, setNote] = useState<string | null>(null);
  const send = async (kind: 'reboot' | 'shutdown') => {
    if (!window.confirm(t('mobile.confirmPower', { kind }))) return;
    try {
      await hub.call(kind === 'reboot' ? 'power.reboot' : 'power.shutdown', { params: { id: assetId } });
      setNote(t('mobile.powerRequested', { kind }));
    } catch (error) {
      setNote(errorText(error));
    }
  };
  return (
    <section aria-labelledby="m-power-title">
      <h2 id="m-power-title">{t('mobile.power')}</h2>
      <div className="m-actions">
        <button type="button" onClick={() => void send('reboot')}>
          {t('mobile.reboot')}
        </button>
        <button type="button" onClick={() => void send('shutdown')}>
          {t('mobile.shutDown')}
        </button>
      </div>
      {note ? <p role="status">{note}</p> : null}
    </section>
  );
}

export function AssetScreen({ stale }: { stale: boolean }) {
  const { t } = useT();
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
  if (!data)
    return asset.isError ? (
      <p className="m-muted" translate="no">
        {errorText(asset.error)}
      </p>
    ) : (
      <p className="m-muted">{t('mobile.loading')}</p>
    );
  const samples = metrics.data?.samples ?? [];
  const last = samples.at(-1);
  return (
    <section aria-labelledby="m-asset-title" className={stale ? 'm-stale' : undefined}>
      <h1 id="m-asset-title" translate="no">
        {data.name}
      </h1>
      <p>
        <span className={`m-dot m-dot-${data.status}`} aria-hidden="true" />{' '}
        {t('asset.status', { status: data.status })}
        {data.last_seen_at ? (
          <span className="m-muted">{t('mobile.seen', { time: formatTime(data.last_seen_at) })}</span>
        ) : null}
      </p>
      <section aria-labelledby="m-metrics-title">
        <h2 id="m-metrics-title">{t('mobile.metrics')}</h2>
        {last ? (
          <>
            <p>
              {t('mobile.cpuMemory', {
                cpu: formatPercent(last.cpu_percent),
                memory: formatPercent((last.memory_used_bytes / Math.max(1, last.memory_total_bytes)) * 100),
              })}
            </p>
            <MiniChart
              times={samples.map((s) => Date.parse(s.ts) / 1000)}
              values={samples.map((s) => s.cpu_percent)}
              from={metrics.data?.from ?? 0}
              to={metrics.data?.to ?? 0}
              max={100}
              format={formatPercent}
              unit="%"
              label={t('mobile.cpuChart')}
              zone={zone}
            />
          </>
        ) : (
          <p className="m-muted">{t('mobile.noSamples')}</p>
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
