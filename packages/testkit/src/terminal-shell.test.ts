import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyOpeners, ptyShellOptions, resolveSettings, runCommand } from '@svc/agent';
import { testTerminalEnvironment } from './terminal-shell.js';

/** Every start-up file a login or interactive sh or bash reads in its home, each taking 20 s. */
const startupFiles = ['.profile', '.bash_profile', '.bash_login', '.bashrc', '.shrc'];

interface Opened {
  output(): string;
  type(text: string): void;
  close(): void;
}

/** A terminal as an agent started with `env` opens one, in `home`. */
async function openTerminal(env: Record<string, string>, home: string): Promise<Opened> {
  const { settings } = resolveSettings({ env, file: null, platform: 'linux' });
  const opener = createPtyOpeners({
    nodePlatform: 'linux',
    runCommand,
    ...ptyShellOptions(settings),
    cwd: home,
    env: { ...process.env, HOME: home },
  }).pty;
  if (!opener) throw new Error('no pty opener');
  let output = '';
  const { source } = await opener.open(
    { cols: 80, rows: 24 },
    {
      output: (chunk) => {
        output += chunk.toString('utf8');
      },
      end: () => undefined,
    },
  );
  return {
    output: () => output,
    type: (text) => {
      source.write(Buffer.from(text), () => undefined);
    },
    close: () => {
      source.close();
    },
  };
}

async function waitForText(terminal: Opened, text: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!terminal.output().includes(text)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

describe("the tests' terminal shell", () => {
  let home: string;
  const opened: Opened[] = [];

  beforeAll(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-slow-home-'));
    for (const file of startupFiles) fs.writeFileSync(path.join(home, file), 'sleep 20\n');
  });
  afterAll(() => {
    for (const terminal of opened) terminal.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('is not held up by slow start-up files in its home', async () => {
    const terminal = await openTerminal({ ...testTerminalEnvironment }, home);
    opened.push(terminal);
    terminal.type('echo ready-$((40+2))\n');
    expect(await waitForText(terminal, 'ready-42', 3_000)).toBe(true);
  });

  it('while the default login shell is held up by them: the home really is slow', async () => {
    const terminal = await openTerminal({}, home);
    opened.push(terminal);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(terminal.output()).toBe('');
  });
});
