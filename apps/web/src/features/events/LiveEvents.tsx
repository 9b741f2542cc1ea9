/**
 * The console on the hub's event feed: one subscription for the signed-in shell, which marks the cached
 * queries an event touches as stale (coalesced, so a burst refetches once), and the dashboard's live
 * activity panel. Pages keep polling as a fallback, slower while the feed is live (`useLiveInterval`).
 */
import { useEffect, useSyncExternalStore } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { subscribeEvents } from '@svc/sdk';
import { EmptyState } from '../../components/EmptyState';
import { formatClock } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { createLiveStore, describeEvent, pollingInterval, staleKeysOf } from './live-events';

const store = createLiveStore();

/** How long changes are gathered before the queries they touch refetch. */
const coalesceMs = 250;

function useLiveSnapshot() {
  return useSyncExternalStore(store.subscribe, store.snapshot);
}

/** Mounted once by the shell: subscribes while a user is signed in. */
export function LiveEventsConnection() {
  const client = useQueryClient();
  useEffect(() => {
    const pending = new Map<string, readonly unknown[]>();
    let timer: ReturnType<typeof setTimeout> | null = null;
    const flush = () => {
      timer = null;
      for (const queryKey of pending.values()) void client.invalidateQueries({ queryKey });
      pending.clear();
    };
    const subscription = subscribeEvents({
      baseUrl: '',
      onEvent: (event) => {
        store.add(event);
        for (const key of staleKeysOf(event)) pending.set(JSON.stringify(key), key);
        if (pending.size > 0) timer ??= setTimeout(flush, coalesceMs);
      },
      onStatus: (status) => {
        if (status.state === 'open') {
          store.setState('live');
          // Whatever happened while the feed was away: refetch once (the feed is best effort).
          if (status.reconnected) void client.invalidateQueries();
        } else if (status.state === 'closed') {
          store.setState(status.retryInMs === null ? 'ended' : 'reconnecting');
        }
      },
    });
    return () => {
      subscription.close();
      if (timer) clearTimeout(timer);
      store.setState('connecting');
    };
  }, [client]);
  return null;
}

/** A query's polling interval: `fallbackMs` while the feed is not live, a minute while it is. */
export function useLiveInterval(fallbackMs: number): number {
  return pollingInterval(useLiveSnapshot().state, fallbackMs);
}

/** The dashboard's panel: the feed's state and its latest events as they arrive. */
export function LiveActivity() {
  const { t } = useT();
  const { state, recent } = useLiveSnapshot();
  return (
    <div className="live-activity">
      <p className={`live-state ${state}`} role="status" data-testid="live-state">
        <span aria-hidden="true" className="live-dot" /> {t('live.state', { state })}
      </p>
      {recent.length === 0 ? (
        <EmptyState title={t('live.empty')}>
          <p>{t('live.emptyText')}</p>
        </EmptyState>
      ) : (
        <ol className="audit-list" aria-label={t('live.events')} aria-live="polite">
          {recent.map((event) => (
            <li key={event.id}>
              <time dateTime={event.ts}>{formatClock(event.ts)}</time> <code>{describeEvent(event)}</code>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
