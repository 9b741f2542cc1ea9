/**
 * The phone's terminal screen part (issue 17 items 1, 6–8): the console's TerminalView sized for a phone on a
 * session the device-owner gate opened; re-attaches after a transient drop when `autoReconnect` is on; the
 * session activity notification shows while the session runs and closes when it ends.
 */
import { useState } from 'react';
import { hub } from '../../api/client';
import { ShellStartNote } from '../sessions/ShellStartNote';
import { TerminalView, useTerminalStatusText, type TerminalStatus } from '../sessions/TerminalView';
import { useT } from '../../i18n/I18nProvider';
import { currentSettings } from './device';
import { MobileSessionShell } from './MobileSessionShell';

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
  const { t } = useT();
  const statusText = useTerminalStatusText();
  const settings = currentSettings();
  const running = status.kind !== 'ended';
  const text = statusText(status);
  return (
    <MobileSessionShell
      kind="terminal"
      assetId={assetId}
      running={running}
      live={status.kind === 'live' || status.kind === 'starting'}
      statusText={text}
      badge={text}
      badgeLabel={t('mobile.terminalStatus')}
      endLabel={t(running ? 'mobile.endSession' : 'mobile.done')}
      onEnd={async () => {
        if (running) await hub.call('sessions.close', { params: { id: sessionId } });
        onClosed();
      }}
    >
      <ShellStartNote status={status} />
      <TerminalView
        sessionId={sessionId}
        onStatus={setStatus}
        autoReconnect={settings.autoReconnect}
        fontSize={12}
        className="terminal-box m-terminal"
      />
    </MobileSessionShell>
  );
}
