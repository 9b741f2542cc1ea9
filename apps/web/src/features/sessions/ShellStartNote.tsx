/**
 * What the terminal page says while a shell has printed nothing for a while (decision 0064), and when it
 * ended without ever printing: it did not start (decision 0091). The region is always there, so assistive
 * technology announces the words when they appear.
 */
import type { TerminalStatus } from './TerminalView';

const slowShellStartText =
  'The shell is still starting: its start-up files (~/.bashrc, ~/.profile) may be slow.';

const shellDidNotStartText =
  "The shell ended before printing anything: the agent's shell setting (SVC_AGENT_SHELL) or its start-up " +
  "files may be at fault; the agent's log says more. Open a new terminal to try again.";

function noteFor(status: TerminalStatus): string | null {
  if (status.kind === 'starting' && status.slow) return slowShellStartText;
  if (status.kind === 'ended' && status.beforeStart === true) return shellDidNotStartText;
  return null;
}

export function ShellStartNote({ status }: { status: TerminalStatus }) {
  return (
    <p className="terminal-note" aria-live="polite">
      {noteFor(status)}
    </p>
  );
}
