/**
 * A noVNC screen: the live desktop through the hub's WebSocket, or a recording replayed by a channel acting
 * as the server. noVNC is imported when the screen mounts, so it is a chunk of its own, never in the initial
 * JavaScript. With `autoReconnect`, a drop of a live desktop that neither this screen nor the hub chose (not
 * an unmount, not a refused password, not one of the hub's 4xxx closes) attaches again to the same session with the same bounded backoff as the terminal; the hub keeps a desktop
 * session without a console for its idle timeout, and the VNC server sends a full first frame again.
 */
import type { RfbChannel } from '@novnc/novnc';
import { useEffect, useRef, useState } from 'react';
import { useT } from '../../i18n/I18nProvider';
import { reconnectDelayMs, reconnectLimits } from './reconnect';
import { attachTouchGestures } from './touch-gestures';

export type DesktopStatus =
  | { state: 'connecting' }
  | { state: 'connected' }
  | { state: 'reconnecting'; attempt: number }
  | { state: 'ended'; clean: boolean }
  /**
   * `message` is the VNC server's or the browser's words (data), or for the screen's own `problem` its English
   * (for the phone app until it reads the catalogues).
   */
  | { state: 'failed'; message: string; problem?: 'refused' | 'needsPassword' };

export interface DesktopScreenProps {
  /** A WebSocket URL, or a channel (the replay) made fresh on each mount. */
  source: { url: string } | { channel: () => RfbChannel };
  /** The VNC password the session create released, when the desktop needs one. */
  password?: string | null;
  viewOnly?: boolean;
  label: string;
  onStatus?: (status: DesktopStatus) => void;
  /** Attach again after a drop that was not clean (live desktops only). */
  autoReconnect?: boolean;
  /** Take the screen's touches as gestures (tap, long press, two-finger tap and drag): the phone's desktop. */
  touchGestures?: boolean;
  /** The connected desktop's keys (for an on-screen keyboard), or null while there is none. */
  onKeys?: (keys: DesktopKeys | null) => void;
}

/** Sending keys to a connected desktop: X keysyms, pressed and released unless `down` says which. */
export interface DesktopKeys {
  sendKey(keysym: number, code: string | null, down?: boolean): void;
  sendCtrlAltDel(): void;
}

export function DesktopScreen({
  source,
  password,
  viewOnly = false,
  label,
  onStatus,
  autoReconnect = false,
  touchGestures = false,
  onKeys,
}: DesktopScreenProps) {
  const { t } = useT();
  const target = useRef<HTMLDivElement>(null);
  const [status, setStatus] = useState<DesktopStatus>({ state: 'connecting' });
  const [pressAt, setPressAt] = useState<{ x: number; y: number } | null>(null);
  const statusListener = useRef(onStatus);
  statusListener.current = onStatus;
  const keysListener = useRef(onKeys);
  keysListener.current = onKeys;

  useEffect(() => {
    const element = target.current;
    if (!touchGestures || viewOnly || !element) return;
    const detach = attachTouchGestures(element, {
      onLongPress: (at) => {
        const box = element.getBoundingClientRect();
        setPressAt(at && { x: at.x - box.left, y: at.y - box.top });
      },
    });
    return () => {
      detach();
      setPressAt(null);
    };
  }, [touchGestures, viewOnly]);
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
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      void import('@novnc/novnc')
        .then(({ default: RFB }) => {
          if (cancelled) return;
          // A live desktop's socket is opened here and handed to noVNC, so its close code is seen.
          let closeCode: number | null = null;
          let socket: WebSocket | null = null;
          if (url) {
            socket = new WebSocket(url);
            socket.addEventListener('close', (event) => {
              closeCode = event.code;
            });
          }
          const channel = socket ?? makeChannel?.();
          if (!channel) return;
          const rfb = new RFB(element, channel, {
            shared: true,
            ...(password ? { credentials: { password } } : {}),
          });
          rfb.viewOnly = viewOnly;
          rfb.scaleViewport = true;
          rfb.background = 'var(--surface-2, #222)';
          let refused = false;
          rfb.addEventListener('connect', () => {
            failures = 0;
            report({ state: 'connected' });
            if (!cancelled) keysListener.current?.(rfb);
          });
          rfb.addEventListener('disconnect', (event) => {
            keysListener.current?.(null);
            const clean = (event as CustomEvent<{ clean: boolean }>).detail.clean;
            if (cancelled || refused) return;
            // The hub's own closes (4000–4999: ended, credential ended, policy) are final.
            const final = closeCode !== null && closeCode >= 4000 && closeCode <= 4999;
            if (autoReconnect && socket && !final && failures < reconnectLimits.attempts) {
              failures += 1;
              report({ state: 'reconnecting', attempt: failures });
              timer = setTimeout(connect, reconnectDelayMs(failures));
              return;
            }
            // A live desktop ended cleanly only when the hub closed it; a lost socket is a disconnect.
            report({ state: 'ended', clean: socket ? final : clean });
          });
          rfb.addEventListener('securityfailure', (event) => {
            const reason = (event as CustomEvent<{ reason?: string }>).detail.reason;
            refused = true;
            report(
              reason === undefined
                ? { state: 'failed', message: 'the desktop refused the password', problem: 'refused' }
                : { state: 'failed', message: reason },
            );
          });
          rfb.addEventListener('credentialsrequired', () => {
            refused = true;
            report({
              state: 'failed',
              message: 'the desktop asks for a password the hub does not hold',
              problem: 'needsPassword',
            });
            rfb.disconnect();
          });
          disconnect = () => {
            rfb.disconnect();
          };
        })
        .catch((error: unknown) => {
          report({ state: 'failed', message: error instanceof Error ? error.message : String(error) });
        });
    };
    connect();
    return () => {
      cancelled = true;
      clearTimeout(timer);
      disconnect?.();
      keysListener.current?.(null);
    };
  }, [url, makeChannel, password, viewOnly, autoReconnect]);

  return (
    <div className="desktop">
      <p className="desktop-status" role="status">
        {status.state === 'failed' ? (
          status.problem === undefined ? (
            <span className="state-bad" translate="no">
              {status.message}
            </span>
          ) : (
            <span className="state-bad">
              {t(status.problem === 'refused' ? 'sessions.desktopRefused' : 'sessions.desktopNeedsPassword')}
            </span>
          )
        ) : (
          t('sessions.desktopStatus', {
            state: status.state === 'ended' && !status.clean ? 'disconnected' : status.state,
            attempt: status.state === 'reconnecting' ? status.attempt : 0,
          })
        )}
      </p>
      <div className="desktop-frame">
        <div
          className={touchGestures ? 'desktop-screen desktop-touch' : 'desktop-screen'}
          ref={target}
          aria-label={label}
          role="application"
        />
        {pressAt ? (
          <span
            className="desktop-press"
            data-testid="long-press-cue"
            style={{ left: `${pressAt.x}px`, top: `${pressAt.y}px` }}
            aria-hidden="true"
          />
        ) : null}
      </div>
    </div>
  );
}
