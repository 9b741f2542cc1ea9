/**
 * The mobile companion (docs/decisions/0031-mobile-app.md): the console's `/m/` pages as an installable PWA —
 * a phone layout with a bottom tab bar, its manifest and service worker, and screens for the fleet, alerts and
 * incidents, an asset and the device's settings. Opened offline it shows the last fleet state it saw, marked
 * stale; saved-action runs taken then are queued and replayed when the hub is back.
 */
import { useEffect, useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { NavLink, Route, Routes } from 'react-router';
import { subscribeEvents } from '@svc/sdk';
import type { SessionUser } from '@svc/protocol';
import { hub, onUnauthorized } from '../../api/client';
import { Loading } from '../../components/Loading';
import { formatTime } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { SignInPage } from '../auth/SignInPage';
import { endSession, fetchSession, sessionKey, SessionProvider } from '../../app/session';
import { AlertsScreen } from './AlertsScreen';
import { AssetScreen } from './AssetScreen';
import { currentConnection, updateConnection, useConnection } from './connection';
import { currentSettings, pushTextsOf, sharePushTextsWithWorker, shareSettingsWithWorker } from './device';
import { FleetScreen } from './FleetScreen';
import { loadSnapshot } from './fleet-snapshot';
import { isUnreachable, replayQueue } from './offline-queue';
import { SettingsScreen } from './SettingsScreen';
import { clearAfterUnauthorized } from './sign-out';
import { sendTelemetry } from './telemetry';
import './mobile.css';

/** The manifest link, only on the app's pages (the desktop console is not the installable app). */
function useManifest(): void {
  useEffect(() => {
    const link = document.createElement('link');
    link.rel = 'manifest';
    link.href = '/m/manifest.webmanifest';
    document.head.append(link);
    const theme = document.createElement('meta');
    theme.name = 'theme-color';
    theme.content = '#1f5fcc';
    document.head.append(theme);
    return () => {
      link.remove();
      theme.remove();
    };
  }, []);
}

/** Registers the service worker, then hands it the files this page loaded, for the offline shell. */
function useServiceWorker(): void {
  useEffect(() => {
    if (!('serviceWorker' in navigator)) return;
    navigator.serviceWorker
      .register('/sw.js', { scope: '/m/' })
      .then(async () => {
        const ready = await navigator.serviceWorker.ready;
        const files = performance
          .getEntriesByType('resource')
          .map((entry) => entry.name)
          .filter((name) => new URL(name).pathname.startsWith('/assets/'));
        ready.active?.postMessage({ type: 'cache-files', files });
      })
      .catch(() => undefined);
  }, []);
}

/** How often queued runs are retried while some wait (each is still sent at most once). */
const replayEveryMs = 5_000;

function useOnlineReplay(): void {
  const client = useQueryClient();
  useEffect(() => {
    const online = () => {
      updateConnection({ reachable: true });
      // Back from the last known state: who is signed in, then everything, from the hub again.
      void client.invalidateQueries({ queryKey: sessionKey });
      sendTelemetry('app.online');
      void replayQueue().catch(() => undefined);
    };
    const offline = () => {
      updateConnection({ reachable: false });
    };
    window.addEventListener('online', online);
    window.addEventListener('offline', offline);
    // Also every few seconds: a hub that was down while the network was up fires no `online` event. While
    // the app believes the hub unreachable, a probe finds out when it answers again, queue or none.
    const retry = () => {
      if (!navigator.onLine) return;
      if (!currentConnection().reachable) {
        hub.call('hub.healthz', {}).then(online, (error: unknown) => {
          if (!isUnreachable(error)) online();
        });
        return;
      }
      void replayQueue().catch(() => undefined);
    };
    retry();
    const timer = setInterval(retry, replayEveryMs);
    return () => {
      clearInterval(timer);
      window.removeEventListener('online', online);
      window.removeEventListener('offline', offline);
    };
  }, [client]);
}

/** The event feed: invalidates what it touches, and feeds the debug banner; reconnects per `autoReconnect`. */
function useEventFeed(): void {
  const client = useQueryClient();
  useEffect(() => {
    const settings = currentSettings();
    let attempts = 0;
    const subscription = subscribeEvents({
      baseUrl: '',
      types: [
        'alert.fired',
        'alert.resolved',
        'alert.acknowledged',
        'incident.created',
        'incident.resolved',
        'asset.online',
        'asset.offline',
      ],
      onEvent: () => {
        void client.invalidateQueries({ queryKey: ['mobile'] });
      },
      onStatus: (status) => {
        if (status.state === 'connecting') {
          attempts = status.attempt;
          updateConnection({ socketState: 'connecting', attempts });
        } else if (status.state === 'open') {
          updateConnection({ socketState: 'open', reachable: true });
          if (status.reconnected) {
            sendTelemetry('ws.reconnected');
            void replayQueue().catch(() => undefined);
          }
        } else {
          updateConnection({ socketState: 'closed', lastCloseCode: status.code });
          sendTelemetry('ws.closed', { code: status.code });
          if (!settings.autoReconnect && status.retryInMs !== null) subscription.close();
        }
      },
    });
    return () => {
      subscription.close();
    };
  }, [client]);
}

function DebugBanner() {
  const { t } = useT();
  const connection = useConnection();
  if (!currentSettings().connectionDebugBanner) return null;
  return (
    <aside className="m-debug" aria-label={t('mobile.diagnostics')}>
      <span>{t('mobile.debugSocket', { origin: connection.socketOrigin })}</span>
      <span>{t('mobile.debugState', { state: connection.socketState })}</span>
      <span>{t('mobile.debugAttempts', { n: String(connection.attempts) })}</span>
      <span>{t('mobile.debugLastClose', { code: String(connection.lastCloseCode ?? '—') })}</span>
      {connection.session ? <span>{t('mobile.debugSession', { session: connection.session })}</span> : null}
    </aside>
  );
}

function MobileShell({ offlineSince }: { offlineSince: string | null }) {
  const { t } = useT();
  useEventFeed();
  useOnlineReplay();
  const connection = useConnection();
  const client = useQueryClient();
  // Shown from the saved state (the session could not be loaded): whatever finds the hub again (the probe, the
  // event socket reopening, a queued run replayed) asks for the session again, and the bar goes live without
  // the user having to navigate.
  useEffect(() => {
    if (offlineSince !== null && connection.reachable)
      void client.invalidateQueries({ queryKey: sessionKey });
  }, [client, offlineSince, connection.reachable]);
  const stale = offlineSince !== null || !connection.reachable;
  return (
    <div className="m-app">
      <header className="m-top">
        <span className="m-brand" translate="no">
          svc hub
        </span>
        {stale ? (
          <span className="m-badge m-badge-stale" role="status">
            {offlineSince
              ? t('mobile.offlineSince', { time: formatTime(offlineSince) })
              : t('mobile.offline')}
          </span>
        ) : (
          <span className="m-badge m-badge-live">{t('mobile.live')}</span>
        )}
      </header>
      <DebugBanner />
      <main className="m-main">
        <Routes>
          <Route index element={<FleetScreen stale={stale} />} />
          <Route path="alerts" element={<AlertsScreen stale={stale} />} />
          <Route path="assets/:id" element={<AssetScreen stale={stale} />} />
          <Route path="settings" element={<SettingsScreen />} />
          <Route path="*" element={<FleetScreen stale={stale} />} />
        </Routes>
      </main>
      <nav className="m-tabs" aria-label={t('mobile.tabs')}>
        <NavLink to="/m/" end>
          {t('mobile.fleet')}
        </NavLink>
        <NavLink to="/m/alerts">{t('mobile.alerts')}</NavLink>
        <NavLink to="/m/settings">{t('mobile.settings')}</NavLink>
      </nav>
    </div>
  );
}

/** Signed in (online), the last user seen (offline), or the sign-in form. */
export function MobileApp() {
  const { t } = useT();
  useManifest();
  useServiceWorker();
  const client = useQueryClient();
  const [snapshot] = useState(loadSnapshot);
  useEffect(() => {
    void shareSettingsWithWorker(currentSettings()).catch(() => undefined);
    sendTelemetry('app.opened', { standalone: window.matchMedia('(display-mode: standalone)').matches });
    return onUnauthorized(() => {
      void clearAfterUnauthorized();
      endSession(client);
    });
  }, [client]);
  // Again whenever the language changes: the service worker writes its notifications in the app's language.
  useEffect(() => {
    void sharePushTextsWithWorker(pushTextsOf(t)).catch(() => undefined);
  }, [t]);
  const session = useQuery({ queryKey: sessionKey, queryFn: fetchSession, staleTime: 60_000, retry: false });
  const sessionFailed = session.isError;
  useEffect(() => {
    // The session did not load: the hub is unreachable until something hears from it (the shell then reloads it).
    if (sessionFailed) updateConnection({ reachable: false });
  }, [sessionFailed]);
  if (session.isPending) return <Loading label={t('loading.app')} fullPage />;
  let user: SessionUser | null = session.data ?? null;
  let offlineSince: string | null = null;
  if (session.isError) {
    // The hub is not reachable: the last fleet state, stale, if this device has one.
    if (!snapshot) {
      return (
        <div className="m-app m-unreachable" role="alert">
          <h1>{t('mobile.unreachable')}</h1>
          <p>{t('mobile.noSnapshot')}</p>
        </div>
      );
    }
    user = snapshot.user;
    offlineSince = snapshot.savedAt;
  }
  if (!user) return <SignInPage />;
  return (
    <SessionProvider user={user}>
      <MobileShell offlineSince={offlineSince} />
    </SessionProvider>
  );
}
