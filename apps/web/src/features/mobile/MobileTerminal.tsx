/**
 * The phone's terminal screen part (issue 17 items 1, 6–8): the console's TerminalView sized for a phone on a
 * session the device-owner gate opened; re-attaches after a transient drop when `autoReconnect` is on; the
 * session activity notification shows while the session runs and closes when it ends.
 */
import { useEffect, useState } from 'react';
import { errorText, hub } from '../../api/client';
import { terminalStatusText, TerminalView, type TerminalStatus } from '../sessions/TerminalView';
import { updateConnection } from './connection';
import { currentSettings } from './device';
import { SessionActivity } from './SessionActivity';

export function MobileTerminal({
  sessionId,
  assetId,
  onClosed,
}: {
  sessionId: string;
  assetId: string;
  onClosed: () => void;
}) {
  const [status, setStatus] = useState<TerminalStatus>({ kind: 'connecting' });
  const [error, setError] = useState<string | null>(null);
  const settings = currentSettings();
  const running = status.kind !== 'ended';
  useEffect(() => {
    updateConnection({ session: `terminal ${terminalStatusText(status)}` });
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
      if (running) await hub.call('sessions.close', { params: { id: sessionId } });
      onClosed();
    } catch (e) {
      setError(errorText(e));
    }
  };
  return (
    <div className="m-terminal-screen">
      {running ? <SessionActivity assetId={assetId} kind="terminal" /> : null}
      <p className="m-row">
        <span
          aria-label="Terminal status"
          role="status"
          className={status.kind === 'live' ? 'm-badge m-badge-live' : 'm-badge'}
        >
          {terminalStatusText(status)}
        </span>
        <button type="button" onClick={() => void end()}>
          {running ? 'End session' : 'Done'}
        </button>
      </p>
      <TerminalView
        sessionId={sessionId}
        onStatus={setStatus}
        autoReconnect={settings.autoReconnect}
        fontSize={12}
        className="terminal-box m-terminal"
      />
      {error ? (
        <p role="alert" className="m-error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
