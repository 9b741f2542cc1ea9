/**
 * The phone's desktop screen part (issue 17 items 1, 6–8): the console's noVNC `DesktopScreen` (noVNC loaded
 * when it mounts), scaled to the phone's width, on a desktop session the device-owner gate opened. The VNC
 * password the create released stays in this component's memory; `autoReconnect` attaches again after a
 * transient drop; the session activity notification shows while it runs. Touches on the screen are gestures
 * (tap, long press, two-finger tap and drag), and the on-screen keyboard types on the desktop.
 */
import { useState } from 'react';
import type { DesktopSessionCreated } from '@svc/protocol';
import { hub } from '../../api/client';
import { useT } from '../../i18n/I18nProvider';
import { DesktopScreen, type DesktopKeys, type DesktopStatus } from '../sessions/DesktopScreen';
import { DesktopKeyboard } from './DesktopKeyboard';
import { currentSettings } from './device';
import { MobileSessionShell } from './MobileSessionShell';

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
  const { t } = useT();
  const [status, setStatus] = useState<DesktopStatus>({ state: 'connecting' });
  const [keys, setKeys] = useState<DesktopKeys | null>(null);
  const settings = currentSettings();
  return (
    <MobileSessionShell
      kind="desktop"
      assetId={assetId}
      running={status.state !== 'ended' && status.state !== 'failed'}
      live={status.state === 'connected'}
      statusText={
        status.state === 'failed'
          ? status.message
          : t('sessions.desktopStatus', {
              state: status.state === 'ended' && !status.clean ? 'disconnected' : status.state,
              attempt: status.state === 'reconnecting' ? status.attempt : 0,
            })
      }
      badge={t('mobile.desktop')}
      endLabel={t('mobile.closeDesktop')}
      onEnd={async () => {
        await hub.call('desktop.closeSession', { params: { session_id: opened.session.id } });
        onClosed();
      }}
    >
      <DesktopScreen
        source={{ url: streamUrl(opened.session.stream_path) }}
        password={opened.credentials?.password ?? null}
        label={t('mobile.desktopOf', { name: assetName })}
        onStatus={setStatus}
        autoReconnect={settings.autoReconnect}
        touchGestures
        onKeys={setKeys}
      />
      <DesktopKeyboard keys={keys} />
    </MobileSessionShell>
  );
}
