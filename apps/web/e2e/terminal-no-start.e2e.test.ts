/**
 * A shell that does not start (decision 0091), in chromium on the hub's real local agent: the agent's terminal
 * shell is a script that prints nothing and fails after a moment, as a broken start-up file or a missing shell
 * would. The status says the shell did not start and why the hub says it ended, and the note says what to
 * check.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { accessibilityProblems } from './axe.js';
import { openLocalTerminal } from './fleet.js';
import { useConsole } from './harness.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-broken-shell-'));
const brokenShell = path.join(dir, 'broken-shell');
// Long enough for the page to attach before it fails: the failure is then seen live.
fs.writeFileSync(brokenShell, '#!/bin/sh\nsleep 3\nexit 3\n', { mode: 0o755 });

const h = useConsole({
  localAgent: true,
  env: { SVC_AGENT_SHELL: brokenShell, SVC_AGENT_SHELL_LOGIN: 'false' },
});

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a terminal whose shell does not start', () => {
  it('says the shell did not start, and what to check', { timeout: 60_000 }, async () => {
    const t = h();
    await openLocalTerminal(t);
    const { page } = t;
    const status = page.getByRole('status');
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe('Starting the shell');
    await expect
      .poll(() => status.textContent(), { timeout: 15_000 })
      .toMatch(/^The shell did not start: .*\(exit 3\)$/);
    await page
      .getByText('The shell ended before printing anything: the agent’s shell setting (SVC_AGENT_SHELL)', {
        exact: false,
      })
      .waitFor();
    // Nothing left to close; the tab says the same.
    expect(await page.getByRole('button', { name: 'Close session' }).count()).toBe(0);
    expect(await page.getByRole('tab').first().textContent()).toContain('The shell did not start');
    expect(await accessibilityProblems(page, 'terminal whose shell did not start')).toEqual([]);
    expect(t.cspViolations).toEqual([]);
  });
});
