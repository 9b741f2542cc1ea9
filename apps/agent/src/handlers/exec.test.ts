import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { rmdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { runExec } from './exec.js';
import { RunningCommands } from './running-commands.js';
import { createExecCgroup, parseCgroup2Mount } from './exec-cgroup.js';
import { belongingTo, parseStat, type ProcessView } from './exec-leftovers.js';

const run = (command: string, timeout_ms = 10_000, max_output_bytes = 1024 * 1024) =>
  runExec({ command, timeout_ms, max_output_bytes }, { killGraceMs: 200, drainMs: 200 });

/** Running, as opposed to gone or a zombie waiting for a parent that may never reap it (PID 1 here may not). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('exec.run', () => {
  it('returns stdout, stderr and the exit code', async () => {
    const result = await run('echo hello; echo oops >&2; exit 3');
    expect(result).toMatchObject({
      exit_code: 3,
      signal: null,
      stdout: 'hello\n',
      stderr: 'oops\n',
      truncated: false,
      timed_out: false,
    });
    expect(result.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('runs through /bin/sh, so shell syntax works (exec is the one place with a shell)', async () => {
    const result = await run('x=4; for i in 1 2; do x=$((x*i)); done; printf "%s" "$x" | tr 8 9');
    expect(result.stdout).toBe('9');
    expect(result.exit_code).toBe(0);
  });

  it('keeps binary-ish and multi-byte output intact', async () => {
    expect((await run("printf 'h\\303\\251 \\342\\202\\254'")).stdout).toBe('hé €');
  });

  it('times out, reports it as a result, and kills the whole process group', async () => {
    const result = await run('sleep 30 & echo $!; wait', 300);
    const childPid = Number(result.stdout.trim());
    expect(result.timed_out).toBe(true);
    expect(result.exit_code).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(result.duration_ms).toBeGreaterThanOrEqual(250);
    expect(result.duration_ms).toBeLessThan(5_000);
    expect(Number.isInteger(childPid) && childPid > 1).toBe(true);
    // the background sleep was in the group: it is gone (give the kernel a moment to reap it)
    for (let i = 0; i < 20 && isAlive(childPid); i++) await sleep(50);
    expect(isAlive(childPid)).toBe(false);
  });

  it('escalates to SIGKILL when the command ignores SIGTERM', async () => {
    const result = await run("trap '' TERM; sleep 5 & wait; sleep 5", 200);
    expect(result.timed_out).toBe(true);
    expect(result.signal).toBe('SIGKILL');
  });

  it('caps each stream at max_output_bytes and flags the cut', async () => {
    const result = await run(
      'head -c 5000 /dev/zero | tr "\\0" a; head -c 10 /dev/zero | tr "\\0" b >&2',
      10_000,
      1000,
    );
    expect(result.stdout).toBe('a'.repeat(1000));
    expect(result.stderr).toBe('b'.repeat(10));
    expect(result.truncated).toBe(true);
    expect(result.exit_code).toBe(0);
  });

  it('does not flag output that fits exactly', async () => {
    const result = await run('printf 12345', 10_000, 5);
    expect(result).toMatchObject({ stdout: '12345', truncated: false });
  });

  it('reports a command killed by a signal', async () => {
    const result = await run('kill -9 $$');
    expect(result).toMatchObject({ exit_code: null, signal: 'SIGKILL', timed_out: false });
  });

  it('returns when the shell exits even if a background child keeps the pipes open', async () => {
    const result = await run('sleep 3 >/dev/null 2>&1 & echo started', 10_000);
    expect(result.stdout).toBe('started\n');
    expect(result.duration_ms).toBeLessThan(2_500);
  });

  it('answers unsupported when there is no shell', async () => {
    await expect(
      runExec({ command: 'true', timeout_ms: 1000, max_output_bytes: 10 }, { shell: '/nonexistent/sh' }),
    ).rejects.toMatchObject({ code: 'unsupported' });
  });

  it('ends every running command when the agent stops, SIGKILL for one that ignores SIGTERM', async () => {
    const running = new RunningCommands();
    const options = { killGraceMs: 200, drainMs: 200, running };
    const polite = runExec({ command: 'sleep 30', timeout_ms: 60_000, max_output_bytes: 1024 }, options);
    const stubborn = runExec(
      { command: "trap '' TERM; sleep 30 & wait; sleep 30", timeout_ms: 60_000, max_output_bytes: 1024 },
      options,
    );
    for (let i = 0; i < 40 && running.size < 2; i++) await sleep(25);
    expect(running.size).toBe(2);
    await sleep(100); // let the stubborn shell install its trap
    const started = performance.now();
    await running.stopAll(300);
    expect(performance.now() - started).toBeLessThan(5_000);
    const [first, second] = await Promise.all([polite, stubborn]);
    expect(first.signal).toBe('SIGTERM');
    expect(second.signal).toBe('SIGKILL');
    expect(running.size).toBe(0);
  });
});

/** Whether this host lets the agent make a cgroup v2 sub-group (root, or a delegated cgroup). */
const probe = await createExecCgroup(`probe-${process.pid}`);
if (probe) await rmdir(probe.dir);

describe.each([
  ['in a cgroup sub-group', undefined, probe === null],
  ['by the marker sweep (no cgroup)', null, false],
] as const)('what a command leaves running, found %s', (_name, mode, unavailable) => {
  const runIn = (cgroupRoot: string | null | undefined, command: string, timeout_ms = 10_000) =>
    runExec(
      { command, timeout_ms, max_output_bytes: 1024 * 1024 },
      { killGraceMs: 200, drainMs: 200, ...(cgroupRoot === undefined ? {} : { cgroupRoot }) },
    );

  it.skipIf(unavailable)(
    'ends a setsid child that a timeout of the process group misses, and says so',
    async () => {
      const result = await runIn(mode, 'setsid sleep 100 >/dev/null 2>&1 & echo $!; sleep 30', 1500);
      const childPid = Number(result.stdout.trim());
      expect(Number.isInteger(childPid) && childPid > 1).toBe(true);
      expect(result.timed_out).toBe(true);
      expect(result.left_running).toEqual({ count: 1, killed: true });
      expect(isAlive(childPid)).toBe(false);
    },
  );

  it.skipIf(unavailable)(
    'ends background jobs of a command that exits normally (an exec is a one-shot)',
    async () => {
      const result = await runIn(mode, 'sleep 100 >/dev/null 2>&1 & echo $!');
      const childPid = Number(result.stdout.trim());
      expect(result).toMatchObject({
        exit_code: 0,
        timed_out: false,
        left_running: { count: 1, killed: true },
      });
      expect(isAlive(childPid)).toBe(false);
    },
  );

  it.skipIf(unavailable)('ends a nohup job and a setsid shell with its own background child', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-exec-'));
    try {
      // The command waits until the setsid shell has started its child, so all are there when it ends.
      const result = await runIn(
        mode,
        `setsid sh -c 'sleep 100 & echo up > ${dir}/up; wait' >/dev/null 2>&1 & ` +
          `nohup sleep 100 >/dev/null 2>&1 & ` +
          `while [ ! -s ${dir}/up ]; do sleep 0.05; done; echo ok`,
      );
      expect(result.stdout).toBe('ok\n');
      // the setsid shell, its background sleep, the nohup sleep
      expect(result.left_running).toEqual({ count: 3, killed: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(unavailable)('says nothing of leftovers when the command left none', async () => {
    const result = await runIn(mode, 'echo done; sleep 0.1 & wait');
    expect(result.stdout).toBe('done\n');
    expect(result).not.toHaveProperty('left_running');
  });
});

describe('contained in a cgroup', () => {
  it.skipIf(probe === null)(
    'ends even a child that cleared its environment and left the session',
    async () => {
      const result = await runExec(
        {
          command: 'env -i setsid sleep 100 >/dev/null 2>&1 & echo $!',
          timeout_ms: 10_000,
          max_output_bytes: 1024,
        },
        { killGraceMs: 200, drainMs: 200 },
      );
      const childPid = Number(result.stdout.trim());
      expect(result.left_running).toEqual({ count: 1, killed: true });
      expect(isAlive(childPid)).toBe(false);
    },
  );

  it('reads the cgroup v2 mount from mountinfo', () => {
    const mountinfo = [
      '24 1 0:22 / /sys rw,nosuid - sysfs sysfs rw',
      '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
    ].join('\n');
    expect(parseCgroup2Mount(mountinfo)).toEqual({ mountPoint: '/sys/fs/cgroup/unified', root: '/' });
    expect(parseCgroup2Mount('24 1 0:22 / /sys rw - sysfs sysfs rw')).toBeNull();
  });
});

describe('exec leftovers', () => {
  const view = (pid: number, ppid: number, group: number, marker: string | null = null): ProcessView => ({
    pid,
    ppid,
    pgid: group,
    sid: group,
    marker,
  });

  it("finds the exec's processes by marker, session or group, and their descendants, and nothing else", () => {
    const processes = [
      view(1, 0, 1),
      view(50, 1, 50), // the agent
      view(100, 50, 100, 'm'), // the shell (ended, but listed here to show it is skipped)
      view(101, 1, 100, 'm'), // a background job, re-parented
      view(200, 1, 200, 'm'), // setsid child: new session and group, still marked
      view(201, 200, 200, null), // its child that cleared its environment
      view(300, 1, 300, 'other'), // another exec's leftover
      view(400, 50, 400), // an unrelated child of the agent
    ];
    expect(belongingTo(processes, { marker: 'm', leaderPid: 100, selfPid: 50 })).toEqual([101, 200, 201]);
  });

  it('reads /proc/<pid>/stat even when the command name holds spaces and parentheses', () => {
    expect(parseStat('4242 (a b) (c)) S 1 4242 4240 0 -1 4194560')).toEqual({
      state: 'S',
      ppid: 1,
      pgid: 4242,
      sid: 4240,
    });
  });
});
