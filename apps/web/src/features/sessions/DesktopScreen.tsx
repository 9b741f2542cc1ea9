/**
 * A noVNC screen: the live desktop through the hub's WebSocket, or a recording replayed by a channel acting
 * as the server. noVNC is imported when the screen mounts, so it is a chunk of its own, never in the initial
 * JavaScript.
 */
import type { RfbChannel } from '@novnc/novnc';
import { useEffect, useRef, useState } from 'react';

export type DesktopStatus =
  | { state: 'connecting' }
  | { state: 'connected' }
  | { state: 'ended'; clean: boolean }
  | { state: 'failed'; message: string };

export interface DesktopScreenProps {
  /** A WebSocket URL, or a channel (the replay) made fresh on each mount. */
  source: { url: string } | { channel: () => RfbChannel };
  /** The VNC password the session create released, when the desktop needs one. */
  password?: string | null;
  viewOnly?: boolean;
  label: string;
  onStatus?: (status: DesktopStatus) => void;
}

export function DesktopScreen({ source, password, viewOnly = false, label, onStatus }: DesktopScreenProps) {
  const target = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<DesktopStatus>({ state: 'connecting' });
  const statusListener = useRef(onStatus);
  statusListener.current = onStatus;
  const url = 'url' in source ? source.url : null;
  const makeChannel = 'channel' in source ? source.channel : null;

  useEffect(() => {
    const element = target.current;
    if (!element) return;
    let disconnect: (() => void) | null = null;
    let cancelled = false;
    const report = (next: DesktopStatus) => {
      if (cancelled) return;
      setStatus(next);
      statusListener.current?.(next);
    };
    report({ state: 'connecting' });
    void import('@novnc/novnc')
      .then(({ default: RFB }) => {
        if (cancelled) return;
        const channel = url ?? makeChannel?.();
        if (!channel) return;
        const rfb = new RFB(element, channel, {
          shared: true,
          ...(password ? { credentials: { password } } : {}),
        });
        rfb.viewOnly = viewOnly;
        rfb.scaleViewport = true;
        rfb.background = 'var(--surface-2, #222)';
        rfb.addEventListener('connect', () => {
          report({ state: 'connected' });
        });
        rfb.addEventListener('disconnect', (event) => {
          const clean = (event as CustomEvent<{ clean: boolean }>).detail.clean;
          report({ state: 'ended', clean });
        });
        rfb.addEventListener('securityfailure', (event) => {
          const reason = (event as CustomEvent<{ reason?: string }>).detail.reason;
          report({ state: 'failed', message: reason ?? 'the desktop refused the password' });
        });
        rfb.addEventListener('credentialsrequired', () => {
          report({ state: 'failed', message: 'the desktop asks for a password the hub does not hold' });
          rfb.disconnect();
        });
        disconnect = () => {
          rfb.disconnect();
        };
      })
      .catch((error: unknown) => {
        report({ state: 'failed', message: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      cancelled = true;
      disconnect?.();
    };
  }, [url, makeChannel, password, viewOnly]);

  return (
    <div className="desktop">
      <p className="desktop-status" role="status">
        {status.state === 'connecting' && 'Connecting…'}
        {status.state === 'connected' && 'Connected'}
        {status.state === 'ended' && (status.clean ? 'Ended' : 'Disconnected')}
        {status.state === 'failed' && <span className="state-bad">{status.message}</span>}
      </p>
      <div className="desktop-screen" ref={target} aria-label={label} role="application" />
    </div>
  );
}
