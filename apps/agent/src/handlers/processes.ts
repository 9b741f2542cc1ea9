/**
 * processes.list reads /proc (Linux); processes.kill signals a pid. No shell, no `ps`.
 */
import { execFileSync } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import {
  agentLimits,
  type AgentRequestPayload,
  type AgentRequestResult,
  type ProcessInfo,
} from '@svc/protocol';
import { AgentError, agentErrorFromErrno } from './agent-error.js';
import { parsePasswd } from './system.js';
import type { HandlerMap } from './types.js';

export interface ProcStat {
  pid: number;
  comm: string;
  state: string;
  ppid: number;
  /** utime + stime, in clock ticks. */
  cpuTicks: number;
  /** Start time after boot, in clock ticks. */
  startTicks: number;
}

/** Parses /proc/<pid>/stat. The command name is in parentheses and may itself contain spaces and `)`. */
export function parseProcStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number(text.slice(0, open).trim());
  const rest = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // rest[0] is field 3 (state); field n is rest[n - 3].
  const field = (n: number) => Number(rest[n - 3]);
  const state = rest[0];
  if (!Number.isInteger(pid) || state === undefined || rest.length < 20) return null;
  return {
    pid,
    comm: text.slice(open + 1, close),
    state,
    ppid: field(4),
    cpuTicks: field(14) + field(15),
    startTicks: field(22),
  };
}

const stateNames: Record<string, string> = {
  R: 'running',
  S: 'sleeping',
  D: 'disk-sleep',
  Z: 'zombie',
  T: 'stopped',
  t: 'tracing-stop',
  X: 'dead',
  I: 'idle',
  P: 'parked',
  W: 'paging',
};

/** The real uid from /proc/<pid>/status. */
export function parseStatusUid(text: string): number | null {
  const match = /^Uid:\s+(\d+)/m.exec(text);
  return match ? Number(match[1]) : null;
}

function getconf(name: string, fallback: number): number {
  try {
    const value = Number(execFileSync('getconf', [name], { encoding: 'utf8', timeout: 2000 }).trim());
    return Number.isInteger(value) && value > 0 ? value : fallback;
  } catch {
    return fallback;
  }
}

export interface ProcessesOptions {
  procRoot?: string;
  passwdPath?: string;
  /** Clock ticks per second (CLK_TCK) and page size; read with getconf when not given. */
  clockTicks?: number;
  pageSize?: number;
  /** The agent's own pid, which it refuses to signal. */
  selfPid?: number;
}

export function createProcessesHandlers(
  options: ProcessesOptions = {},
): Pick<HandlerMap, 'processes.list' | 'processes.kill'> {
  const procRoot = options.procRoot ?? '/proc';
  const passwdPath = options.passwdPath ?? '/etc/passwd';
  let ticks = options.clockTicks;
  let pageSize = options.pageSize;
  const selfPid = options.selfPid ?? process.pid;

  async function list(): Promise<AgentRequestResult<'processes.list'>> {
    ticks ??= getconf('CLK_TCK', 100);
    pageSize ??= getconf('PAGESIZE', 4096);
    const [uptimeText, statText, passwdText, names] = await Promise.all([
      readFile(`${procRoot}/uptime`, 'utf8'),
      readFile(`${procRoot}/stat`, 'utf8'),
      readFile(passwdPath, 'utf8').catch(() => ''),
      readdir(procRoot),
    ]).catch((error: unknown) => {
      throw new AgentError('unsupported', `cannot read ${procRoot}: ${(error as Error).message}`);
    });
    const uptime = Number(uptimeText.split(/\s+/)[0]);
    const bootTime = Number(/^btime\s+(\d+)/m.exec(statText)?.[1] ?? NaN);
    const users = new Map(parsePasswd(passwdText).map((u) => [u.uid, u.name]));
    const pids = names
      .filter((n) => /^\d+$/.test(n))
      .map(Number)
      .sort((a, b) => a - b);

    const processes: ProcessInfo[] = [];
    for (const pid of pids.slice(0, agentLimits.processes)) {
      const info = await readProcess(pid, uptime, bootTime, users, ticks, pageSize);
      if (info) processes.push(info);
    }
    return { processes };
  }

  async function readProcess(
    pid: number,
    uptime: number,
    bootTime: number,
    users: Map<number, string>,
    hz: number,
    page: number,
  ): Promise<ProcessInfo | null> {
    const dir = `${procRoot}/${pid}`;
    let statText: string;
    let statusText: string;
    try {
      [statText, statusText] = await Promise.all([
        readFile(`${dir}/stat`, 'utf8'),
        readFile(`${dir}/status`, 'utf8'),
      ]);
    } catch {
      return null; // exited while we looked
    }
    const stat = parseProcStat(statText);
    if (!stat) return null;
    const [cmdline, statm] = await Promise.all([
      readFile(`${dir}/cmdline`).catch(() => Buffer.alloc(0)),
      readFile(`${dir}/statm`, 'utf8').catch(() => ''),
    ]);
    const uid = parseStatusUid(statusText);
    const residentPages = Number(statm.split(/\s+/)[1] ?? 0);
    const startedAfterBoot = stat.startTicks / hz;
    const lifetime = uptime - startedAfterBoot;
    const cpuSeconds = stat.cpuTicks / hz;
    const command = cmdline.toString('utf8').replace(/\0+$/, '').replace(/\0/g, ' ').trim();
    return {
      pid,
      ppid: Number.isInteger(stat.ppid) && stat.ppid >= 0 ? stat.ppid : 0,
      user: uid === null ? '' : (users.get(uid) ?? String(uid)),
      name: stat.comm.slice(0, 256),
      command: (command || `[${stat.comm}]`).slice(0, 4096),
      state: stateNames[stat.state] ?? stat.state,
      cpu_percent:
        lifetime > 0 && Number.isFinite(cpuSeconds)
          ? Math.max(0, Math.round((cpuSeconds / lifetime) * 1000) / 10)
          : 0,
      memory_bytes: Number.isFinite(residentPages) ? residentPages * page : 0,
      started_at: Number.isFinite(bootTime)
        ? new Date((bootTime + startedAfterBoot) * 1000).toISOString()
        : null,
    };
  }

  function kill({
    pid,
    signal,
  }: AgentRequestPayload<'processes.kill'>): Promise<AgentRequestResult<'processes.kill'>> {
    if (pid === selfPid)
      return Promise.reject(new AgentError('invalid_argument', 'refusing to signal the agent itself'));
    try {
      process.kill(pid, signal);
    } catch (error) {
      return Promise.reject(agentErrorFromErrno(error, `pid ${pid}`));
    }
    return Promise.resolve({ pid, signal });
  }

  return { 'processes.list': list, 'processes.kill': kill };
}
