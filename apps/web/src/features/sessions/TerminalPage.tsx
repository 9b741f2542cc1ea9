/**
 * A live terminal session (`/sessions/:id`): xterm.js on the session's attach WebSocket. Binary frames are
 * terminal bytes both ways; text frames are the hub's status and end messages. A reload re-attaches and the
 * hub replays the recent screen first.
 */
import { useEffect, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { hub } from '../../api/client';
import './sessions.css';

type Status = { kind: 'connecting' } | { kind: 'live' } | { kind: 'ended'; text: string };

function attachUrl(id: string): string {
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${window.location.host}/api/v2/sessions/${encodeURIComponent(id)}/attach`;
}

export function TerminalPage() {
  const { id = '' } = useParams();
  const box = useRef<HTMLDivElement>(null);
  const socket = useRef<WebSocket | null>(null);
  const [status, setStatus] = useState<Status>({ kind: 'connecting' });

  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const term = new Terminal({ cursorBlink: true, fontSize: 14, convertEol: false });
    const fit = new FitAddon();
    term.loadAddon(fit);
    term.open(element);
    fit.fit();
    const ws = new WebSocket(attachUrl(id));
    ws.binaryType = 'arraybuffer';
    socket.current = ws;
    const sendResize = () => {
      if (ws.readyState === WebSocket.OPEN)
        ws.send(JSON.stringify({ type: 'resize', cols: term.cols, rows: term.rows }));
    };
    ws.onopen = () => {
      setStatus({ kind: 'live' });
      sendResize();
      term.focus();
    };
    ws.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
      if (typeof event.data === 'string') {
        const message = JSON.parse(event.data) as {
          type: string;
          reason?: string;
          exit_code?: number | null;
        };
        if (message.type === 'ended')
          setStatus({
            kind: 'ended',
            text: `Session ended: ${message.reason ?? ''}${message.exit_code == null ? '' : ` (exit ${message.exit_code})`}`,
          });
        return;
      }
      term.write(new Uint8Array(event.data));
    };
    ws.onclose = (event) => {
      setStatus((current) =>
        current.kind === 'ended'
          ? current
          : { kind: 'ended', text: `Disconnected: ${event.reason || `code ${event.code}`}` },
      );
    };
    const encoder = new TextEncoder();
    const input = term.onData((data) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(data));
    });
    const onWindowResize = () => {
      fit.fit();
    };
    const resized = term.onResize(sendResize);
    window.addEventListener('resize', onWindowResize);
    return () => {
      window.removeEventListener('resize', onWindowResize);
      input.dispose();
      resized.dispose();
      ws.close();
      term.dispose();
    };
  }, [id]);

  const close = async () => {
    await hub.call('sessions.close', { params: { id } });
  };

  return (
    <section className="page terminal-page" aria-labelledby="terminal-title">
      <p className="breadcrumbs">
        <Link to="/sessions">Sessions</Link> /
      </p>
      <div className="page-header">
        <h1 id="terminal-title">Terminal</h1>
        <span role="status" className={status.kind === 'live' ? 'chip state-ok' : 'chip'}>
          {status.kind === 'connecting' ? 'Connecting' : status.kind === 'live' ? 'Live' : status.text}
        </span>
        {status.kind === 'live' && (
          <button type="button" onClick={() => void close()}>
            Close session
          </button>
        )}
      </div>
      <div className="terminal-box" ref={box} aria-label="Terminal" />
    </section>
  );
}
