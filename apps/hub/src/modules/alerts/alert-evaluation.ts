/**
 * Whether a rule's condition holds for one asset, and what that changes: a pure function of the rule, what
 * is known of the asset (presence, recent samples, a watched service's state), whether an alert is open, and
 * the time (decision 0017).
 */
import type { AlertRuleKind } from '@svc/protocol';

export interface RuleCondition {
  kind: AlertRuleKind;
  /** Percent the metric must stay above (metric rules). */
  thresholdPercent: number | null;
  /** The watched systemd unit (service rules). */
  service?: string | null;
  durationMinutes: number;
  /** Failed runs in a row of one check that fire (check rules). */
  failures?: number | null;
}

/** One service check about the asset, as it stands after its last run (check rules). */
export interface CheckObservation {
  name: string;
  /** `unknown` until its first run. */
  status: string;
  consecutiveFailures: number;
  lastError: string | null;
}

/** What the agent said of a service rule's unit this pass. */
export interface ServiceObservation {
  /**
   * The unit's `active_state`; null when nothing is known: the agent did not answer, has no service manager,
   * or lists no such unit (it lists every installed unit file, so the asset does not have that service).
   */
  state: string | null;
  /** When the unit was first seen down in the current run of down observations (the evaluator keeps it). */
  downSince: string | null;
}

/** One sample as percents; null where the total is unknown (zero). */
export interface PercentSample {
  ts: string;
  cpu: number | null;
  memory: number | null;
  disk: number | null;
}

export interface AssetObservation {
  /** online / offline from the agent channel; other statuses (never connected) say nothing about presence. */
  status: string;
  /** When the asset was last seen (for an offline asset: when its agent went away). */
  lastSeenAt: string | null;
  /** Samples of the recent past (at least the rule's duration plus `freshMs`), any order. */
  samples: readonly PercentSample[];
  /** For service rules: the unit's observed state; absent means nothing is known. */
  service?: ServiceObservation;
  /** For check rules: the asset's enabled checks; absent or empty means nothing is known. */
  checks?: readonly CheckObservation[];
}

export type Transition =
  { type: 'fire'; value: number | null; summary: string } | { type: 'resolve' } | { type: 'none' };

/** A metric rule judges only on a sample at most this old; with none, nothing changes. */
export const freshMs = 5 * 60 * 1000;

const minuteMs = 60 * 1000;

type Holds = { holds: true; value: number | null; summary: string } | { holds: false } | null;

function minutes(ms: number): string {
  const m = Math.floor(ms / minuteMs);
  if (m === 0) return 'less than a minute';
  return m === 1 ? '1 minute' : `${m} minutes`;
}

function offlineCondition(rule: RuleCondition, asset: AssetObservation, nowMs: number): Holds {
  if (asset.status === 'online') return { holds: false };
  if (asset.status !== 'offline') return null;
  const since = asset.lastSeenAt === null ? Number.NaN : Date.parse(asset.lastSeenAt);
  // Offline with no last-seen time: offline since before anything the hub knows, so long enough.
  const offlineMs = Number.isNaN(since) ? Number.POSITIVE_INFINITY : nowMs - since;
  if (offlineMs < rule.durationMinutes * minuteMs) return null;
  const summary = Number.isFinite(offlineMs) ? `offline for ${minutes(offlineMs)}` : 'offline';
  return { holds: true, value: null, summary };
}

/**
 * `active` and `reloading` are up; `inactive` and `failed` are down; a unit in transition (`activating`,
 * `deactivating`, ...) or not known says nothing.
 */
export function serviceStateClass(state: string | null): 'up' | 'down' | null {
  if (state === 'active' || state === 'reloading') return 'up';
  if (state === 'inactive' || state === 'failed') return 'down';
  return null;
}

function serviceCondition(rule: RuleCondition, asset: AssetObservation, nowMs: number): Holds {
  // Offline assets are the offline rule's business: nothing is asked of them, nothing changes.
  if (asset.status !== 'online' || asset.service === undefined) return null;
  const { state, downSince } = asset.service;
  const stateClass = serviceStateClass(state);
  if (stateClass === null) return null;
  if (stateClass === 'up') return { holds: false };
  const since = downSince === null ? nowMs : Date.parse(downSince);
  const downMs = Number.isNaN(since) ? 0 : Math.max(0, nowMs - since);
  if (downMs < rule.durationMinutes * minuteMs) return null;
  const over = rule.durationMinutes > 0 ? ` for ${minutes(downMs)}` : '';
  return { holds: true, value: null, summary: `service ${rule.service ?? ''} ${state ?? ''}${over}` };
}

/**
 * Holds while one of the asset's checks has failed `failures` runs in a row; known not to hold once every
 * check that has run is up. Checks not run yet say nothing. Presence is not asked: a check watches the
 * service from outside, and an asset whose agent is offline may still serve.
 */
function checkCondition(rule: RuleCondition, asset: AssetObservation): Holds {
  const ran = (asset.checks ?? []).filter((c) => c.status !== 'unknown');
  if (ran.length === 0) return null;
  const needed = rule.failures ?? 1;
  const failing = ran.filter((c) => c.consecutiveFailures >= needed);
  const first = failing[0];
  if (first === undefined) {
    // Failing, but not yet `failures` times: an open alert stays open until the check is up again.
    return ran.every((c) => c.status === 'up') ? { holds: false } : null;
  }
  const error = first.lastError === null ? '' : `: ${first.lastError}`;
  const more = failing.length > 1 ? ` (and ${String(failing.length - 1)} more)` : '';
  return {
    holds: true,
    value: null,
    summary: `check ${first.name} failed ${String(first.consecutiveFailures)} times in a row${error}${more}`,
  };
}

function metricCondition(
  kind: 'cpu' | 'memory' | 'disk',
  rule: RuleCondition,
  asset: AssetObservation,
  nowMs: number,
): Holds {
  const threshold = rule.thresholdPercent ?? 100;
  const points = asset.samples
    .map((s) => ({ ms: Date.parse(s.ts), value: s[kind] }))
    .filter((p): p is { ms: number; value: number } => p.value !== null && p.ms <= nowMs)
    .sort((a, b) => a.ms - b.ms);
  const latest = points.at(-1);
  if (latest === undefined || nowMs - latest.ms > freshMs) return null;
  if (latest.value <= threshold) return { holds: false };
  // The current run above the threshold starts after the last sample at or below it.
  let runStart = latest.ms;
  for (let i = points.length - 1; i >= 0; i--) {
    const point = points[i];
    if (point === undefined || point.value <= threshold) break;
    runStart = point.ms;
  }
  if (nowMs - runStart < rule.durationMinutes * minuteMs) return null;
  const value = Math.round(latest.value * 10) / 10;
  const over = rule.durationMinutes > 0 ? ` for ${minutes(nowMs - runStart)}` : '';
  return { holds: true, value, summary: `${kind} ${value}% above ${threshold}%${over}` };
}

/**
 * The transition for one (rule, asset): fire when the condition holds and no alert is open, resolve when it
 * is known not to hold and one is open. Not enough known (no fresh sample, a presence the hub never saw, a
 * service state not known or in transition, a condition not held long enough yet): no change.
 */
export function evaluateRule(
  rule: RuleCondition,
  asset: AssetObservation,
  alertOpen: boolean,
  now: Date,
): Transition {
  const nowMs = now.getTime();
  const { kind } = rule;
  const condition =
    kind === 'offline'
      ? offlineCondition(rule, asset, nowMs)
      : kind === 'service'
        ? serviceCondition(rule, asset, nowMs)
        : kind === 'check'
          ? checkCondition(rule, asset)
          : metricCondition(kind, rule, asset, nowMs);
  // Not held long enough yet, or not known: an open alert stays open.
  if (condition === null) return { type: 'none' };
  if (condition.holds && !alertOpen)
    return { type: 'fire', value: condition.value, summary: condition.summary };
  if (!condition.holds && alertOpen) return { type: 'resolve' };
  return { type: 'none' };
}

/** Percent of a used/total pair; null when the total is unknown. */
export function percentOf(used: number, total: number): number | null {
  return total > 0 ? (used / total) * 100 : null;
}
