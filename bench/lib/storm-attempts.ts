/**
 * Where the time of a reconnect storm goes, from the fleet's connect attempts (FleetSimulator recordAttempts):
 * how long each agent still sat in its backoff after the hub answered again (the agents' share), how long its
 * successful attempt took from connect to welcome (the hub's share), and how fast the hub took agents back.
 */
import fs from 'node:fs';
import type { ConnectAttempt } from '@svc/testkit';
import { percentile } from './fleet.js';

export interface StormSplit {
  /** Agents welcomed after the hub was up. */
  back: number;
  /** Per agent: from the hub up to its first attempt that reached it (ms). */
  waitInBackoff: number[];
  /** Per agent: its successful attempt, connect to welcome (ms). */
  hubTime: number[];
  /** Per agent: from the hub up to its welcome (ms). */
  backAfter: number[];
  /** Attempts that started after the hub was up and failed (refused, timed out). */
  failedAfterUp: number;
  /** The most welcomes in one second. */
  peakPerSecond: number;
}

export function readAttempts(files: readonly string[]): ConnectAttempt[] {
  const out: ConnectAttempt[] = [];
  for (const [child, file] of files.entries()) {
    if (!fs.existsSync(file)) continue;
    const attempts = JSON.parse(fs.readFileSync(file, 'utf8')) as ConnectAttempt[];
    // Agent numbers are per child: keep them apart.
    for (const a of attempts) out.push({ ...a, agent: child * 1_000_000 + a.agent });
  }
  return out;
}

/** Splits the storm after `upAt` (wall-clock ms when the hub answered again). */
export function splitStorm(attempts: readonly ConnectAttempt[], upAt: number): StormSplit {
  const byAgent = new Map<number, ConnectAttempt[]>();
  for (const a of attempts) {
    if (a.endedAt < upAt) continue; // refused while the hub was down
    const list = byAgent.get(a.agent) ?? [];
    list.push(a);
    byAgent.set(a.agent, list);
  }
  const split: StormSplit = {
    back: 0,
    waitInBackoff: [],
    hubTime: [],
    backAfter: [],
    failedAfterUp: 0,
    peakPerSecond: 0,
  };
  const perSecond = new Map<number, number>();
  for (const list of byAgent.values()) {
    list.sort((a, b) => a.startedAt - b.startedAt);
    for (const a of list) if (!a.welcomed && a.startedAt >= upAt) split.failedAfterUp += 1;
    const first = list[0];
    const welcomed = list.find((a) => a.welcomed);
    if (!first || !welcomed) continue;
    split.back += 1;
    split.waitInBackoff.push(Math.max(0, first.startedAt - upAt));
    split.hubTime.push(welcomed.endedAt - welcomed.startedAt);
    split.backAfter.push(welcomed.endedAt - upAt);
    const second = Math.floor((welcomed.endedAt - upAt) / 1000);
    perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
  }
  split.peakPerSecond = Math.max(0, ...perSecond.values());
  return split;
}

/** `p50 / p90 / max` of ms values, in seconds. */
export function spread(values: readonly number[]): string {
  const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return `${s(percentile(values, 50))} / ${s(percentile(values, 90))} / ${s(percentile(values, 100))}`;
}
