/**
 * A live terminal session (`/sessions/:id`): the shared TerminalView on the session's attach WebSocket. A
 * reload re-attaches and the hub replays the recent screen first; so does a transient drop (the console has
 * no device settings: re-attaching is always on here, as `autoReconnect` defaults on in the mobile app).
 * Until the shell prints, the page says it is starting, and why that may take long (decision 0064).
 */
import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { hub } from '../../api/client';
import { ShellStartNote } from './ShellStartNote';
import { terminalStatusText, TerminalView, type TerminalStatus } from './TerminalView';

export function TerminalPage() {
  const { id = '' } = useParams();
  const [status, setStatus] = useState<TerminalStatus>({ kind: 'connecting' });

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
          {terminalStatusText(status)}
        </span>
        {(status.kind === 'live' || status.kind === 'starting') && (
          <button type="button" onClick={() => void close()}>
            Close session
          </button>
        )}
      </div>
      <ShellStartNote status={status} />
      <TerminalView sessionId={id} onStatus={setStatus} autoReconnect />
    </section>
  );
}
