/**
 * What one agent may add to the metric history. One agent once sent 76,000 samples a second, 375,000 of them
 * with one timestamp, and the hub kept them all for a week. Every agent's samples pass here before the store:
 * - a sample stamped further ahead than maxFutureSkewMs, or before the retention, is refused (out_of_window);
 * - a sample not newer than the newest already taken from that agent is dropped (duplicate). svc-agent sends
 *   its samples oldest first (its buffer is first in, first out), so a repeat or a replay is exactly a sample
 *   that does not move forward: one number per agent decides it, where a set of seen timestamps would grow
 *   with the history. The cost: an agent whose clock steps back loses samples until it passes its newest one;
 *   the newest is forgotten when the hub restarts;
 * - the rest draw on a token bucket per agent (over_budget): it refills at samplesPerInterval per collect
 *   interval (the one the welcome announces) and holds burstSamples, an agent's whole offline backlog sent at
 *   reconnect plus one interval.
 * Dropped samples are counted per agent (for /hub/agents and /hub/status) and logged summarized: one line per
 * agent per minute at most, never one per frame.
 */
import type { MetricSample } from '@svc/protocol';
import type { MetricsSink } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import { canonicalTsMs } from './metrics.store.js';

/** Samples svc-agent keeps while it cannot reach the hub (apps/agent MetricsBuffer), sent at reconnect. */
const agentBacklogSamples = 2_000;

/**
 * The budget for a collect interval of `collectIntervalS` seconds: one sample per second of it (svc-agent's
 * shortest collect interval is 1 s, so no real agent goes over), and a burst of a whole backlog plus one
 * interval.
 */
export function metricsBudgetFor(collectIntervalS: number): {
  samplesPerInterval: number;
  burstSamples: number;
} {
  const samplesPerInterval = Math.max(1, Math.floor(collectIntervalS));
  return { samplesPerInterval, burstSamples: agentBacklogSamples + samplesPerInterval };
}

interface MetricsBudgetCounts {
  /** Passed on to the store. */
  accepted: number;
  /** Dropped: the agent's budget was spent. */
  over_budget: number;
  /** Dropped: not newer than the newest sample already taken from the agent. */
  duplicate: number;
  /** Refused: stamped too far ahead, before the retention, or unreadable. */
  out_of_window: number;
}

export interface MetricsBudget extends MetricsSink {
  /** What this hub process took and dropped from one agent since it started. */
  countsFor(assetId: string): MetricsBudgetCounts;
  /** The same, summed over every agent. */
  totals(): MetricsBudgetCounts;
  /** Logs the drops not yet logged of agents whose last line is a minute old (the timer calls it). */
  sweep(): void;
  /** Drops what is kept for an asset (it was deleted). */
  forget(assetId: string): void;
  close(): void;
}

export interface MetricsBudgetOptions {
  sink: MetricsSink;
  clock: Clock;
  logger: Logger;
  /** The collect interval the welcome announces. */
  collectIntervalS: number;
  /** Overrides of metricsBudgetFor(collectIntervalS). */
  samplesPerInterval?: number;
  burstSamples?: number;
  /** Samples older than this many days are refused (the store's retention; default 7). */
  retentionDays?: number;
  /** Samples stamped further ahead than this are refused (default 10 minutes, as the store). */
  maxFutureSkewMs?: number;
  /** How often drops are logged per agent at most (default a minute). */
  logIntervalMs?: number;
  /** Whether a timer logs what is left unlogged (default true; tests call sweep()). */
  sweepTimer?: boolean;
}

interface AgentBudget {
  tokens: number;
  refilledAt: number;
  newestMs: number;
  counts: MetricsBudgetCounts;
  /** Drops since the last log line. */
  unlogged: Omit<MetricsBudgetCounts, 'accepted'>;
  loggedAt: number;
}

const dayMs = 24 * 60 * 60 * 1000;

function zeroCounts(): MetricsBudgetCounts {
  return { accepted: 0, over_budget: 0, duplicate: 0, out_of_window: 0 };
}

export function createMetricsBudget(options: MetricsBudgetOptions): MetricsBudget {
  const { sink, clock, logger } = options;
  const derived = metricsBudgetFor(options.collectIntervalS);
  const intervalMs = Math.max(1, options.collectIntervalS) * 1000;
  const perInterval = options.samplesPerInterval ?? derived.samplesPerInterval;
  const burst = Math.max(1, options.burstSamples ?? derived.burstSamples);
  const retentionMs = (options.retentionDays ?? 7) * dayMs;
  const maxFutureSkewMs = options.maxFutureSkewMs ?? 10 * 60 * 1000;
  const logIntervalMs = Math.max(1, options.logIntervalMs ?? 60_000);
  const agents = new Map<string, AgentBudget>();
  const totals = zeroCounts();

  function budgetOf(assetId: string, now: number): AgentBudget {
    let agent = agents.get(assetId);
    if (!agent) {
      agent = {
        tokens: burst,
        refilledAt: now,
        newestMs: Number.NEGATIVE_INFINITY,
        counts: zeroCounts(),
        unlogged: { over_budget: 0, duplicate: 0, out_of_window: 0 },
        loggedAt: Number.NEGATIVE_INFINITY,
      };
      agents.set(assetId, agent);
      return agent;
    }
    // A clock that went back refills nothing.
    const elapsed = Math.max(0, now - agent.refilledAt);
    agent.tokens = Math.min(burst, agent.tokens + (elapsed * perInterval) / intervalMs);
    agent.refilledAt = now;
    return agent;
  }

  function log(assetId: string, agent: AgentBudget, now: number): void {
    const { over_budget, duplicate, out_of_window } = agent.unlogged;
    if (over_budget + duplicate + out_of_window === 0) return;
    logger.warn(
      {
        asset_id: assetId,
        over_budget,
        duplicate,
        out_of_window,
        budget: { samples_per_interval: perInterval, interval_s: intervalMs / 1000, burst },
      },
      'agent metric samples dropped',
    );
    agent.unlogged = { over_budget: 0, duplicate: 0, out_of_window: 0 };
    agent.loggedAt = now;
  }

  const timer =
    options.sweepTimer !== false
      ? setInterval(() => {
          budget.sweep();
        }, logIntervalMs)
      : null;
  timer?.unref();

  const budget: MetricsBudget = {
    add(assetId, samples) {
      const now = clock.now().getTime();
      const agent = budgetOf(assetId, now);
      const taken: MetricSample[] = [];
      let outOfWindow = 0;
      let duplicate = 0;
      let overBudget = 0;
      for (const sample of samples) {
        let ms = canonicalTsMs(sample.ts);
        if (Number.isNaN(ms)) ms = Date.parse(sample.ts);
        if (Number.isNaN(ms) || ms > now + maxFutureSkewMs || ms < now - retentionMs) outOfWindow += 1;
        else if (ms <= agent.newestMs) duplicate += 1;
        else if (agent.tokens < 1) overBudget += 1;
        else {
          agent.tokens -= 1;
          agent.newestMs = ms;
          taken.push(sample);
        }
      }
      agent.counts.accepted += taken.length;
      totals.accepted += taken.length;
      if (outOfWindow + duplicate + overBudget > 0) {
        agent.counts.out_of_window += outOfWindow;
        agent.counts.duplicate += duplicate;
        agent.counts.over_budget += overBudget;
        totals.out_of_window += outOfWindow;
        totals.duplicate += duplicate;
        totals.over_budget += overBudget;
        agent.unlogged.out_of_window += outOfWindow;
        agent.unlogged.duplicate += duplicate;
        agent.unlogged.over_budget += overBudget;
        if (now - agent.loggedAt >= logIntervalMs) log(assetId, agent, now);
      }
      if (taken.length > 0) sink.add(assetId, taken);
    },

    countsFor(assetId) {
      const agent = agents.get(assetId);
      return agent ? { ...agent.counts } : zeroCounts();
    },

    totals: () => ({ ...totals }),

    sweep() {
      const now = clock.now().getTime();
      for (const [assetId, agent] of agents) {
        if (now - agent.loggedAt >= logIntervalMs) log(assetId, agent, now);
      }
    },

    forget(assetId) {
      agents.delete(assetId);
    },

    close() {
      if (timer) clearInterval(timer);
    },
  };
  return budget;
}
