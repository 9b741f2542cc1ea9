/**
 * A shell slow to start (decision 0064), in chromium on the hub's real local agent: the agent's terminal shell
 * is a script that waits at a gate (as slow start-up files would) and then becomes /bin/sh. The page says
 * the shell is starting, after 5 s that it is still starting and why that may be, and once the test opens
 * the gate the terminal is live and runs a command.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { useConsole } from './harness.js';
import { openLocalTerminal } from './fleet.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-slow-shell-'));
const gate = path.join(dir, 'open');
const slowShell = path.join(dir, 'slow-shell');
// At most 30 s at the gate, so a failed test leaves no shell waiting for ever.
fs.writeFileSync(
  slowShell,
  `#!/bin/sh\ni=0\nwhile [ ! -e '${gate}' ] && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i+1)); done\nexec /bin/sh "$@"\n`,
  { mode: 0o755 },
);

const h = useConsole({
  localAgent: true,
  env: { SVC_AGENT_SHELL: slowShell, SVC_AGENT_SHELL_LOGIN: 'false' },
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a terminal whose shell is slow to start', () => {
  it(
    'says the shell is starting, then that it is slow and why, then works',
    { timeout: 60_000 },
    async () => {
      const t = h();
      await openLocalTerminal(t);
      const { page } = t;
      const status = page.getByRole('status');
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('Starting the shell');
      const startingSince = Date.now();
      // A shell that is starting can be closed; nothing says it is slow yet.
      expect(await page.getByRole('button', { name: 'Close session' }).isVisible()).toBe(true);
      const note = page.getByText(
        'The shell is still starting: its start-up files (~/.bashrc, ~/.profile) may be slow.',
      );
      expect(await note.count()).toBe(0);

      await note.waitFor({ timeout: 8_000 });
      expect(Date.now() - startingSince).toBeGreaterThan(3_000);
      expect(await status.textContent()).toBe('Starting the shell');
      await t.screenshot('terminal-slow-start');

      fs.writeFileSync(gate, '');
      await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Live');
      expect(await note.count()).toBe(0);
      const rows = page.locator('.xterm-rows');
      await page.locator('.terminal-box').click();
      await page.keyboard.type('echo slow-$((40+2))');
      await page.keyboard.press('Enter');
      await expect.poll(() => rows.textContent(), { timeout: 10_000 }).toContain('slow-42');
      expect(t.cspViolations).toEqual([]);
    },
  );
});
