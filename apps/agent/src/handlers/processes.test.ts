import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import os from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createProcessesHandlers, parseProcStat, parseStatusUid } from './processes.js';

const processes = createProcessesHandlers();
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function spawnSleep(): ChildProcess & { pid: number } {
  const child = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(child);
  if (child.pid === undefined) throw new Error('sleep did not start');
  return child as ChildProcess & { pid: number };
}

describe('parsers', () => {
  it('parses /proc/<pid>/stat with spaces and parentheses in the name', () => {
    const text =
      '4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 150 50 0 0 20 0 1 0 123456 1000000 200 18446744073709551615';
    expect(parseProcStat(text)).toEqual({
      pid: 4242,
      comm: 'my (odd) name',
      state: 'S',
      ppid: 1,
      cpuTicks: 200,
      startTicks: 123456,
    });
    expect(parseProcStat('garbage')).toBeNull();
  });

  it('reads the real uid from status', () => {
    expect(parseStatusUid('Name:\tx\nUid:\t1000\t1001\t1000\t1000\n')).toBe(1000);
    expect(parseStatusUid('Name:\tx\n')).toBeNull();
  });
});

describe('processes.list', () => {
  it('lists this process with its details', async () => {
    const { processes: list } = await processes['processes.list']({});
    const self = list.find((p) => p.pid === process.pid);
    expect(self).toBeDefined();
    expect(self?.ppid).toBe(process.ppid);
    expect(self?.command).toContain('node');
    expect(self?.memory_bytes).toBeGreaterThan(1024 * 1024);
    expect(self?.state).toMatch(/running|sleeping/);
    expect(self?.user).toBe(os.userInfo().username);
    expect(Date.parse(self?.started_at ?? '')).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(self?.started_at ?? '')).toBeGreaterThan(Date.now() - 24 * 3600 * 1000 * 365);
  });

  it('includes a child it did not start itself', async () => {
    const child = spawnSleep();
    const { processes: list } = await processes['processes.list']({});
    expect(list.find((p) => p.pid === child.pid)).toMatchObject({
      name: 'sleep',
      command: 'sleep 30',
      ppid: process.pid,
    });
  });
});

describe('processes.kill', () => {
  it('signals a process (our own sleep child)', async () => {
    const child = spawnSleep();
    const exited = once(child, 'exit');
    await expect(processes['processes.kill']({ pid: child.pid, signal: 'SIGTERM' })).resolves.toEqual({
      pid: child.pid,
      signal: 'SIGTERM',
    });
    const [code, signal] = (await exited) as [number | null, string | null];
    expect(code).toBeNull();
    expect(signal).toBe('SIGTERM');
  });

  it('answers not_found for a pid that does not exist', async () => {
    const child = spawnSleep();
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
    await expect(processes['processes.kill']({ pid: child.pid, signal: 'SIGTERM' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('refuses to signal the agent itself', async () => {
    await expect(processes['processes.kill']({ pid: process.pid, signal: 'SIGKILL' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
