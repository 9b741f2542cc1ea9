/**
 * The phone's desktop screen part (issue 17 items 1, 6–8): the console's noVNC `DesktopScreen` (noVNC loaded
 * when it mounts), scaled to the phone's width, on a desktop session the device-owner gate opened. The VNC
 * password the create released stays in this component's memory; `autoReconnect` attaches again after a
 * transient drop; the session activity notification shows while it runs.
 */
import { useEffect, useState } from 'react';
import type { DesktopSessionCreated } from '@svc/protocol';
import { errorText, hub } from '../../api/client';
import { DesktopScreen, desktopStatusText, type DesktopStatus } from '../sessions/DesktopScreen';
import { updateConnection } from './connection';
import { currentSettings } from './device';
import { SessionActivity } from './SessionActivity';

function streamUrl(path: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}${path}`;
}

export function MobileDesktop({
  opened,
  assetId,
  assetName,
  onClosed,
}: {
  opened: DesktopSessionCreated;
  assetId: string;
  assetName: string;
  onClosed: () => void;
}) {
  const [status, setStatus] = useState<DesktopStatus>({ state: 'connecting' });
  const [error, setError] = useState<string | null>(null);
  const settings = currentSettings();
  const running = status.state !== 'ended' && status.state !== 'failed';
  useEffect(() => {
    updateConnection({ session: `desktop ${desktopStatusText(status)}` });
  }, [status]);
  useEffect(
    () => () => {
      updateConnection({ session: null });
    },
    [],
  );
  const end = async () => {
    setError(null);
    try {
      await hub.call('desktop.closeSession', { params: { session_id: opened.session.id } });
      onClosed();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <div className="m-desktop-screen">
      {running ? <SessionActivity assetId={assetId} kind="desktop" /> : null}
      <p className="m-row">
        <span className={status.state === 'connected' ? 'm-badge m-badge-live' : 'm-badge'}>Desktop</span>
        <button type="button" onClick={() => void end()}>
          Close desktop
        </button>
      </p>
      <DesktopScreen
        source={{ url: streamUrl(opened.session.stream_path) }}
        password={opened.credentials?.password ?? null}
        label={`Desktop of ${assetName}`}
        onStatus={setStatus}
        autoReconnect={settings.autoReconnect}
      />
      {error ? (
        <p role="alert" className="m-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
