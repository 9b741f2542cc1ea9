/** The terminal settings as the pty opener takes them; apart from pty.ts, which loads on the first terminal. */
import type { PtyOptions } from './pty.js';

/** The settings `terminal_shell` and `terminal_login_shell` as the opener takes them. */
export function ptyShellOptions(settings: {
  terminalShell: string | null;
  terminalLoginShell: boolean;
}): Pick<PtyOptions, 'shell' | 'loginShell'> {
  return {
    ...(settings.terminalShell !== null ? { shell: settings.terminalShell } : {}),
    loginShell: settings.terminalLoginShell,
  };
}
