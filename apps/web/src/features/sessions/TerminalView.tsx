/**
 * xterm.js on a session's attach WebSocket, shared by the console's terminal page and the mobile app's
 * terminal screen. Binary frames are terminal bytes both ways; text frames are the hub's status and end
 * messages. With `autoReconnect`, a transient drop (any close the hub did not choose: not its `ended`
 * message, not one of its 4xxx codes) re-attaches to the same session with a bounded backoff; the hub keeps
 * the session for its grace period and replays the recent screen, so the terminal is reset first.
 *
 * A shell that has printed nothing yet is still starting (decision 0064): the hub's `status` after the replay
 * says `replayed: 0` and no byte came; the first byte of output makes it live. After `slowStartMs` the status
 * says it is slow, and the page says why it may be. A session that ends before its shell printed anything did
 * not start, and its status says so.
 *
 * Copy and paste (decision 0091): Ctrl+Shift+C copies the selection, Ctrl+Shift+V pastes the clipboard, the
 * browser's own copy and paste (its context menu, the Edit menu) work through xterm's handlers, and with
 * `copyOnSelect` a selection is copied as it is made. Ctrl+C and Ctrl+V stay the terminal's (interrupt,
 * literal next). The page reaches the terminal through `handle` (insert a snippet, paste, copy).
 */
import { useCallback, useEffect, useRef } from 'react';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { openUnderCsp } from './adopted-styles';
import { reconnectDelayMs, reconnectLimits } from './reconnect';
import { inputFrames } from './terminal-input';
import { useT } from '../../i18n/I18nProvider';
import './sessions.css';

export type TerminalStatus =
  | { kind: 'connecting' }
  | { kind: 'starting'; slow: boolean }
  | { kind: 'live' }
  | { kind: 'reconnecting'; attempt: number; code: number }
  | {
      kind: 'ended';
      /** The session's end, a shell that never printed, or the socket lost. */
      end: 'session' | 'notStarted' | 'disconnected';
      /** The hub's own words (data), or the socket's close reason; may be empty. */
      reason: string;
      /** The shell's exit code, or the socket's close code when disconnected. */
      code: number | null;
      beforeStart?: boolean;
    };

/** What a page can do with a terminal it shows. */
export interface TerminalHandle {
  /** Text as a paste: bracketed when the shell asked for it, so line breaks in it do not run. */
  paste(text: string): void;
  /** Raw input, as if typed (`\r` is Enter). */
  type(text: string): void;
  /** Whether the shell asked for bracketed paste. */
  bracketedPaste(): boolean;
  /** Copies the selection to the clipboard; false when nothing is selected. */
  copySelection(): Promise<boolean>;
  /** Pastes what the clipboard holds. */
  pasteClipboard(): Promise<void>;
  focus(): void;
}

/** The status in the reader's language, for a status chip. */
/** Exit and close codes are passed as text: a number argument would be grouped (1.006 in German). */
export function useTerminalStatusText(): (status: TerminalStatus) => string {
  const { t } = useT();
  return useCallback(
    (status: TerminalStatus) => {
      if (status.kind === 'ended') {
        const why =
          status.end === 'disconnected'
            ? status.reason || t('sessions.closeCode', { code: String(status.code ?? 0) })
            : [status.reason, status.code === null ? '' : t('sessions.exit', { code: String(status.code) })]
                .filter((part) => part !== '')
                .join(' ');
        return t('sessions.ended', { end: status.end, why });
      }
      return t('sessions.terminalStatus', {
        kind: status.kind,
        attempt: status.kind === 'reconnecting' ? status.attempt : 0,
      });
    },
    [t],
  );
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
  active = true,
  copyOnSelect = false,
  initialInput,
  onInitialInputSent,
  handle,
  label,
}: {
  sessionId: string;
  onStatus: (status: TerminalStatus) => void;
  autoReconnect?: boolean;
  fontSize?: number;
  className?: string;
  /** Shown now (a page of tabs hides the others): sized to its box when it becomes so. */
  active?: boolean;
  copyOnSelect?: boolean;
  /** Typed once the shell first prints (a bookmark's `cd`); `onInitialInputSent` says it was. */
  initialInput?: string;
  onInitialInputSent?: () => void;
  handle?: (handle: TerminalHandle | null) => void;
  label?: string;
}) {
  const { t } = useT();
  const box = useRef<HTMLDivElement>(null);
  const report = useRef(onStatus);
  report.current = onStatus;
  const copying = useRef(copyOnSelect);
  copying.current = copyOnSelect;
  const firstInput = useRef({ text: initialInput, sent: onInitialInputSent });
  firstInput.current = { text: initialInput, sent: onInitialInputSent };
  const handleRef = useRef(handle);
  handleRef.current = handle;
  const fitNow = useRef<(() => void) | null>(null);
  const shown = useRef(active);
  shown.current = active;

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
    /** Whether the shell has printed anything in this page's life (a replay counts). */
    let everOutput = false;

    const send = (data: string) => {
      if (ws?.readyState !== WebSocket.OPEN) return;
      // A long paste or snippet in frames the hub accepts (at most 16 KiB each).
      for (const frame of inputFrames(encoder.encode(data))) ws.send(frame);
    };
    const copySelection = async () => {
      const selected = term.getSelection();
      if (selected === '') return false;
      await navigator.clipboard.writeText(selected);
      return true;
    };
    const pasteClipboard = async () => {
      const text = await navigator.clipboard.readText();
      if (text !== '') term.paste(text);
    };
    term.attachCustomKeyEventHandler((event) => {
      if (event.type !== 'keydown' || !event.ctrlKey || !event.shiftKey || event.altKey) return true;
      if (event.code === 'KeyC') {
        event.preventDefault();
        void copySelection();
        return false;
      }
      if (event.code === 'KeyV') {
        // Not the browser's paste too: the clipboard is read once, here.
        event.preventDefault();
        void pasteClipboard();
        return false;
      }
      return true;
    });
    const selection = term.onSelectionChange(() => {
      if (copying.current && term.hasSelection()) void copySelection();
    });
    // Sized only: a keyboard user moving along the tabs keeps the focus on them.
    fitNow.current = () => {
      fit.fit();
    };
    handleRef.current?.({
      paste: (text) => {
        term.paste(text);
      },
      type: send,
      bracketedPaste: () => term.modes.bracketedPasteMode,
      copySelection,
      pasteClipboard,
      focus: () => {
        term.focus();
      },
    });

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
        if (shown.current) term.focus();
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
            const reason = message.reason ?? '';
            const code = message.exit_code ?? null;
            report.current(
              everOutput
                ? { kind: 'ended', end: 'session', reason, code }
                : {
                    kind: 'ended',
                    end: 'notStarted',
                    reason,
                    code,
                    beforeStart: true,
                  },
            );
          }
          return;
        }
        if (!hasOutput) {
          hasOutput = true;
          clearTimeout(slowTimer);
          report.current({ kind: 'live' });
        }
        term.write(new Uint8Array(event.data));
        if (!everOutput) {
          everOutput = true;
          const { text, sent } = firstInput.current;
          if (text !== undefined) {
            send(text);
            sent?.();
          }
        }
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
        report.current({
          kind: 'ended',
          end: 'disconnected',
          reason: event.reason,
          code: event.code,
        });
      };
    };
    connect(false);

    const input = term.onData(send);
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
      selection.dispose();
      fitNow.current = null;
      handleRef.current?.(null);
      ws?.close();
      term.dispose();
    };
  }, [sessionId, autoReconnect, fontSize]);

  useEffect(() => {
    if (active) fitNow.current?.();
  }, [active]);

  // What xterm draws (the shell's output, its own input's name) is data, not the console's text.
  return <div className={className} ref={box} aria-label={label ?? t('sessions.terminal')} translate="no" />;
}
