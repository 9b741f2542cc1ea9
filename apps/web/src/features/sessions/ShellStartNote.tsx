/**
 * What the terminal page says while a shell has printed nothing for a while (decision 0064), and when it
 * ended without ever printing: it did not start (decision 0091). The region is always there, so assistive
 * technology announces the words when they appear.
 */
import type { ReactNode } from 'react';
import { useT, type I18n } from '../../i18n/I18nProvider';
import type { TerminalStatus } from './TerminalView';

function noteFor(status: TerminalStatus, rich: I18n['rich']): ReactNode {
  if (status.kind === 'starting' && status.slow)
    return rich('sessions.slowStart', { files: <code>~/.bashrc, ~/.profile</code> });
  if (status.kind === 'ended' && status.beforeStart === true)
    return rich('sessions.didNotStart', { setting: <code>SVC_AGENT_SHELL</code> });
  return null;
}

export function ShellStartNote({ status }: { status: TerminalStatus }) {
  const { rich } = useT();
  return (
    <p className="terminal-note" aria-live="polite">
      {noteFor(status, rich)}
    </p>
  );
}
