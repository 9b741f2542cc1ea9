/**
 * What the terminal page says while a shell has printed nothing for a while (decision 0064). The region is
 * always there, so assistive technology announces the words when they appear.
 */
import type { TerminalStatus } from './TerminalView';

const slowShellStartText =
  'The shell is still starting: its start-up files (~/.bashrc, ~/.profile) may be slow.';

export function ShellStartNote({ status }: { status: TerminalStatus }) {
  const slow = status.kind === 'starting' && status.slow;
  return (
    <p className="terminal-note" aria-live="polite">
      {slow ? slowShellStartText : null}
    </p>
  );
}
