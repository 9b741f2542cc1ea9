import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StreamExit } from '@svc/protocol';
import type { OpenedSource } from '../channel/streams.js';
import { runCommand } from '../platform/run-command.js';
import { createPtyOpeners, type PtyOptions } from './pty.js';

interface Terminal {
  source: OpenedSource;
  text(): string;
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  ended: Promise<{ reason: string; exit: StreamExit | undefined }>;
}

async function openTerminal(
  cols = 80,
  rows = 24,
  shellOptions: Pick<PtyOptions, 'loginShell' | 'env'> = {},
): Promise<Terminal> {
  const opener = createPtyOpeners({
    nodePlatform: 'linux',
    runCommand,
    shell: '/bin/sh',
    cwd: '/tmp',
    ...shellOptions,
  }).pty;
  if (!opener) throw new Error('no pty opener');
  let output = '';
  let endResolve: (end: { reason: string; exit: StreamExit | undefined }) => void = () => undefined;
  const ended = new Promise<{ reason: string; exit: StreamExit | undefined }>((resolve) => {
    endResolve = resolve;
  });
  const { source, info } = await opener.open(
    { cols, rows },
    {
      output: (chunk) => {
        output += chunk.toString('utf8');
      },
      end: (reason, exit) => {
        endResolve({ reason, exit });
      },
    },
  );
  expect(info.shell).toBe('/bin/sh');
  expect(info.pid).toBeGreaterThan(0);
  return {
    source,
    text: () => output,
    ended,
    async waitFor(pattern, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (!pattern.test(output)) {
        if (Date.now() > deadline) throw new Error(`no ${String(pattern)} in ${JSON.stringify(output)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
  };
}

const type = (t: Terminal, text: string) =>
  new Promise<void>((resolve) => {
    t.source.write(Buffer.from(text), resolve);
  });

describe('pty streams (util-linux script)', () => {
  it('runs a shell on a terminal of the asked size, resizes it, and reports its exit', async () => {
    const t = await openTerminal(100, 30);
    await type(t, 'tty; stty size; echo $((6*7))x\n');
    await t.waitFor(/42x/);
    expect(t.text()).toMatch(/\/dev\/pts\/\d+/);
    expect(t.text()).toMatch(/30 100/);
    t.source.resize?.(120, 40);
    await new Promise((r) => setTimeout(r, 300));
    await type(t, 'stty size\n');
    await t.waitFor(/40 120/);
    await type(t, 'exit 3\n');
    const end = await t.ended;
    expect(end.exit).toEqual({ code: 3, signal: null });
  });

  it('close ends the shell', async () => {
    const t = await openTerminal();
    await type(t, 'echo pid=$$\n');
    await t.waitFor(/pid=\d+/);
    const pid = Number(/pid=(\d+)/.exec(t.text())?.[1]);
    t.source.close();
    const alive = () => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const deadline = Date.now() + 5_000;
    while (alive() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(alive()).toBe(false);
  });

  it('starts the shell as a login shell, which reads ~/.profile, unless told not to', async () => {
    const home = await mkdtemp(path.join(os.tmpdir(), 'svc-pty-home-'));
    try {
      await writeFile(path.join(home, '.profile'), 'echo profile-$((2+3))-read\n');
      const env = { ...process.env, HOME: home };
      const login = await openTerminal(80, 24, { env });
      await type(login, 'echo done-$((1+1))\n');
      await login.waitFor(/done-2/);
      expect(login.text()).toContain('profile-5-read');
      login.source.close();
      const plain = await openTerminal(80, 24, { env, loginShell: false });
      await type(plain, 'echo done-$((1+1))\n');
      await plain.waitFor(/done-2/);
      expect(plain.text()).not.toContain('profile-5-read');
      plain.source.close();
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('answers unsupported off Linux', async () => {
    const opener = createPtyOpeners({ nodePlatform: 'darwin', runCommand }).pty;
    await expect(
      opener?.open({ cols: 80, rows: 24 }, { output: () => undefined, end: () => undefined }),
    ).rejects.toMatchObject({ code: 'unsupported' });
  });
});
