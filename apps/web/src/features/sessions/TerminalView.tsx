/**
 * xterm.js on a session's attach WebSocket, shared by the console's terminal page and the mobile app's
 * terminal screen. Binary frames are terminal bytes both ways; text frames are the hub's status and end
 * messages. With `autoReconnect`, a transient drop (any close the hub did not choose: not its `ended`
 * message, not one of its 4xxx codes) re-attaches to the same session with a bounded backoff; the hub keeps
 * the session for its grace period and replays the recent screen, so the terminal is reset first.
 *
 * A shell that has printed nothing yet is still starting (decision 0064): the hub's `status` after the replay
 * says `replayed: 0` and no byte came; the first byte of output makes it live. After `slowStartMs` the status
 * says it is slow, and the page says why it may be.
 */
import { useEffect, useRef } from 'react';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { openUnderCsp } from './adopted-styles';
import { reconnectDelayMs, reconnectLimits } from './reconnect';
import './sessions.css';

export type TerminalStatus =
  | { kind: 'connecting' }
  | { kind: 'starting'; slow: boolean }
  | { kind: 'live' }
  | { kind: 'reconnecting'; attempt: number; code: number }
  | { kind: 'ended'; text: string };

/** The status in words, for a status chip. */
export function terminalStatusText(status: TerminalStatus): string {
  switch (status.kind) {
    case 'connecting':
      return 'Connecting';
    case 'starting':
      return 'Starting the shell';
    case 'live':
      return 'Live';
    case 'reconnecting':
      return `Reconnecting (attempt ${status.attempt})`;
    case 'ended':
      return status.text;
  }
}

function attachUrl(id: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}/api/v2/sessions/${encodeURIComponent(id)}/attach`;
}

/** How long a shell may print nothing before the page says its start is slow. */
const slowStartMs = 5_000;

/** Closes the hub chooses (4000–4999: ended, credential ended, policy, protocol, slow, flood) are final. */
function isFinal(code: number): boolean {
  return code >= 4000 && code <= 4999;
}

export function TerminalView({
  sessionId,
  onStatus,
  autoReconnect = false,
  fontSize = 14,
  className = 'terminal-box',
}: {
  sessionId: string;
  onStatus: (status: TerminalStatus) => void;
  autoReconnect?: boolean;
  fontSize?: number;
  className?: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const report = useRef(onStatus);
  report.current = onStatus;

  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const term = new Terminal({ cursorBlink: true, fontSize, convertEol: false });
    const fit = new FitAddon();
    term.loadAddon(fit);
    // Its dynamic CSS through the CSSOM, not <style> elements the CSP refuses (adopted-styles.ts).
    openUnderCsp((parent) => {
      term.open(parent);
    }, element);
    fit.fit();
    const encoder = new TextEncoder();
    let ws: WebSocket | null = null;
    let disposed = false;
    let ended = false;
    let failures = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let slowTimer: ReturnType<typeof setTimeout> | undefined;

    const sendResize = () => {
      if (ws?.readyState === WebSocket.OPEN)
        ws.send(JSON.stringify({ type: 'resize', cols: term.cols, rows: term.rows }));
    };

    const connect = (reattach: boolean) => {
      const socket = new WebSocket(attachUrl(sessionId));
      socket.binaryType = 'arraybuffer';
      ws = socket;
      /** Whether this attach has had a byte of the shell's output (replayed or new). */
      let hasOutput = false;
      clearTimeout(slowTimer);
      socket.onopen = () => {
        failures = 0;
        // The hub replays the recent screen on every attach: start from a clean one.
        if (reattach) term.reset();
        sendResize();
        term.focus();
      };
      socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
        if (typeof event.data === 'string') {
          const message = JSON.parse(event.data) as {
            type: string;
            reason?: string;
            exit_code?: number | null;
            replayed?: number;
          };
          if (message.type === 'status' && !hasOutput && message.replayed === 0) {
            report.current({ kind: 'starting', slow: false });
            slowTimer = setTimeout(() => {
              if (!hasOutput && !ended) report.current({ kind: 'starting', slow: true });
            }, slowStartMs);
          } else if (message.type === 'status') {
            report.current({ kind: 'live' });
          }
          if (message.type === 'ended') {
            clearTimeout(slowTimer);
            ended = true;
            report.current({
              kind: 'ended',
              text: `Session ended: ${message.reason ?? ''}${message.exit_code == null ? '' : ` (exit ${message.exit_code})`}`,
            });
          }
          return;
        }
        if (!hasOutput) {
          hasOutput = true;
          clearTimeout(slowTimer);
          report.current({ kind: 'live' });
        }
        term.write(new Uint8Array(event.data));
      };
      socket.onclose = (event) => {
        clearTimeout(slowTimer);
        if (disposed || ended) return;
        if (autoReconnect && !isFinal(event.code) && failures < reconnectLimits.attempts) {
          failures += 1;
          report.current({ kind: 'reconnecting', attempt: failures, code: event.code });
          timer = setTimeout(() => {
            connect(true);
          }, reconnectDelayMs(failures));
          return;
        }
        report.current({ kind: 'ended', text: `Disconnected: ${event.reason || `code ${event.code}`}` });
      };
    };
    connect(false);

    const input = term.onData((data) => {
      if (ws?.readyState === WebSocket.OPEN) ws.send(encoder.encode(data));
    });
    const onWindowResize = () => {
      fit.fit();
    };
    const resized = term.onResize(sendResize);
    window.addEventListener('resize', onWindowResize);
    return () => {
      disposed = true;
      clearTimeout(timer);
      clearTimeout(slowTimer);
      window.removeEventListener('resize', onWindowResize);
      input.dispose();
      resized.dispose();
      ws?.close();
      term.dispose();
    };
  }, [sessionId, autoReconnect, fontSize]);

  return <div className={className} ref={box} aria-label="Terminal" />;
}
