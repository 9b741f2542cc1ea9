import {
  scheduleLimits,
  scheduleRunStatuses,
  type ExecResult,
  type ExecSummary,
  type Schedule,
  type ScheduleRun,
  type ScheduleRunStatus,
} from '@svc/protocol';
import type { Principal } from '../../access/principal.js';
import { loadedTargets } from '../../access/target-set.js';
import type { ScheduleRow, ScheduleRunRow } from './schedules.repository.js';

export function presentSchedule(row: ScheduleRow): Schedule {
  const set = loadedTargets(row);
  return {
    id: row.id,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    command: row.command,
    action_id: row.action_id,
    timeout: row.timeout_s,
    targets: set.targets,
    group: set.group,
    enabled: row.enabled === 1,
    only_in_maintenance_window: row.only_in_window === 1,
    next_run_at: row.next_run_at,
    last_run_at: row.last_run_at,
    created_at: row.created_at,
  };
}

function parsed<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function statusOf(text: string): ScheduleRunStatus {
  return (scheduleRunStatuses as readonly string[]).includes(text) ? (text as ScheduleRunStatus) : 'failed';
}

export function presentRun(row: ScheduleRunRow): ScheduleRun {
  return {
    id: row.id,
    schedule_id: row.schedule_id,
    tick_at: row.tick_at,
    status: statusOf(row.status),
    ticks: row.ticks,
    started_at: row.started_at,
    finished_at: row.finished_at,
    summary: parsed<ExecSummary | null>(row.summary, null),
    results: parsed<ExecResult[]>(row.results, []),
    error: row.error,
  };
}

/** A stream cut to `bytes` of UTF-8, without a broken character at the end. */
function cutBytes(text: string, bytes: number): { text: string; cut: boolean } {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= bytes) return { text, cut: false };
  return {
    text: buffer
      .subarray(0, bytes)
      .toString('utf8')
      .replace(/\uFFFD+$/, ''),
    cut: true,
  };
}

/** What a run record keeps of each result: streams cut to scheduleLimits.storedStreamBytes. */
export function storedResult(result: ExecResult): ExecResult {
  const stdout = cutBytes(result.stdout, scheduleLimits.storedStreamBytes);
  const stderr = cutBytes(result.stderr, scheduleLimits.storedStreamBytes);
  return {
    ...result,
    stdout: stdout.text,
    stderr: stderr.text,
    truncated: result.truncated || stdout.cut || stderr.cut,
  };
}

/** The principal a schedule's runs act as: its creator's role, scopes and allowed assets when it was made. */
export interface RunAs {
  authType: Principal['authType'];
  userId: string | null;
  keyId: string | null;
  keyName: string | null;
  role: Principal['role'];
  scopes: string[] | null;
  allowedAssets: string[] | null;
}

export function runAsOf(principal: Principal): RunAs {
  return {
    authType: principal.authType,
    userId: principal.userId,
    keyId: principal.key?.id ?? null,
    keyName: principal.key?.name ?? null,
    role: principal.role,
    scopes: principal.scopes === null ? null : [...principal.scopes],
    allowedAssets: principal.allowedAssets === null ? null : [...principal.allowedAssets],
  };
}

export function parseRunAs(text: string): RunAs {
  return JSON.parse(text) as RunAs;
}

export function principalOf(runAs: RunAs): Principal {
  return {
    authType: runAs.authType,
    userId: runAs.userId,
    role: runAs.role,
    scopes: runAs.scopes,
    key: runAs.keyId !== null ? { id: runAs.keyId, name: runAs.keyName ?? '', expiresAt: null } : null,
    allowedAssets: runAs.allowedAssets === null ? null : new Set(runAs.allowedAssets),
  };
}
