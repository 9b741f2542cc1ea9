import { describe, expect, it } from 'vitest';
import {
  evaluateRule,
  type AssetObservation,
  type PercentSample,
  type RuleCondition,
} from './alert-evaluation.js';

const now = new Date('2026-01-01T12:00:00.000Z');
const ago = (minutes: number) => new Date(now.getTime() - minutes * 60_000).toISOString();
const cpu = (minutesAgo: number, value: number): PercentSample => ({
  ts: ago(minutesAgo),
  cpu: value,
  memory: 10,
  disk: 10,
});

const offline5: RuleCondition = { kind: 'offline', thresholdPercent: null, durationMinutes: 5 };
const offline0: RuleCondition = { kind: 'offline', thresholdPercent: null, durationMinutes: 0 };
const cpu90for3: RuleCondition = { kind: 'cpu', thresholdPercent: 90, durationMinutes: 3 };
const cpu90now: RuleCondition = { kind: 'cpu', thresholdPercent: 90, durationMinutes: 0 };
const disk80: RuleCondition = { kind: 'disk', thresholdPercent: 80, durationMinutes: 0 };
const nginx5: RuleCondition = {
  kind: 'service',
  thresholdPercent: null,
  service: 'nginx',
  durationMinutes: 5,
};
const nginx0: RuleCondition = {
  kind: 'service',
  thresholdPercent: null,
  service: 'nginx',
  durationMinutes: 0,
};

const checks3: RuleCondition = { kind: 'check', thresholdPercent: null, durationMinutes: 0, failures: 3 };
const withChecks = (...states: [string, number][]): AssetObservation => ({
  status: 'online',
  lastSeenAt: ago(0),
  samples: [],
  checks: states.map(([status, failures]) => ({
    name: 'web',
    status,
    consecutiveFailures: failures,
    lastError: failures > 0 ? 'status 503' : null,
  })),
});

const presence = (status: string, lastSeenMinutesAgo: number | null): AssetObservation => ({
  status,
  lastSeenAt: lastSeenMinutesAgo === null ? null : ago(lastSeenMinutesAgo),
  samples: [],
});
const withSamples = (samples: PercentSample[]): AssetObservation => ({
  status: 'online',
  lastSeenAt: null,
  samples,
});

const unit = (state: string | null, downMinutesAgo: number | null, status = 'online'): AssetObservation => ({
  status,
  lastSeenAt: null,
  samples: [],
  service: { state, downSince: downMinutesAgo === null ? null : ago(downMinutesAgo) },
});

describe('evaluateRule', () => {
  const table: {
    name: string;
    rule: RuleCondition;
    asset: AssetObservation;
    open: boolean;
    expected: string;
    summary?: string;
  }[] = [
    {
      name: 'offline long enough fires',
      rule: offline5,
      asset: presence('offline', 6),
      open: false,
      expected: 'fire',
      summary: 'offline for 6 minutes',
    },
    {
      name: 'offline not long enough waits',
      rule: offline5,
      asset: presence('offline', 4),
      open: false,
      expected: 'none',
    },
    {
      name: 'offline with 0 minutes fires at once',
      rule: offline0,
      asset: presence('offline', 0),
      open: false,
      expected: 'fire',
    },
    {
      name: 'offline with no last-seen time fires',
      rule: offline5,
      asset: presence('offline', null),
      open: false,
      expected: 'fire',
      summary: 'offline',
    },
    {
      name: 'offline and already open: no change',
      rule: offline5,
      asset: presence('offline', 60),
      open: true,
      expected: 'none',
    },
    {
      name: 'back online resolves',
      rule: offline5,
      asset: presence('online', 0),
      open: true,
      expected: 'resolve',
    },
    {
      name: 'online and nothing open: no change',
      rule: offline5,
      asset: presence('online', 0),
      open: false,
      expected: 'none',
    },
    {
      name: 'never connected says nothing',
      rule: offline0,
      asset: presence('unknown', null),
      open: false,
      expected: 'none',
    },
    {
      name: 'never connected keeps an open alert',
      rule: offline0,
      asset: presence('unknown', null),
      open: true,
      expected: 'none',
    },
    {
      name: 'cpu above for the whole duration fires',
      rule: cpu90for3,
      asset: withSamples([cpu(5, 50), cpu(4, 95), cpu(2, 96), cpu(0, 97)]),
      open: false,
      expected: 'fire',
      summary: 'cpu 97% above 90% for 4 minutes',
    },
    {
      name: 'cpu above for less than the duration waits',
      rule: cpu90for3,
      asset: withSamples([cpu(3, 50), cpu(2, 95), cpu(1, 96), cpu(0, 97)]),
      open: false,
      expected: 'none',
    },
    {
      name: 'cpu at the threshold is not above',
      rule: cpu90now,
      asset: withSamples([cpu(0, 90)]),
      open: false,
      expected: 'none',
    },
    {
      name: 'cpu above with 0 minutes fires on one sample',
      rule: cpu90now,
      asset: withSamples([cpu(1, 91)]),
      open: false,
      expected: 'fire',
    },
    {
      name: 'cpu back below resolves',
      rule: cpu90for3,
      asset: withSamples([cpu(5, 99), cpu(0, 20)]),
      open: true,
      expected: 'resolve',
    },
    {
      name: 'a stale sample says nothing',
      rule: cpu90now,
      asset: withSamples([cpu(6, 99)]),
      open: false,
      expected: 'none',
    },
    {
      name: 'no samples keep an open alert',
      rule: cpu90now,
      asset: withSamples([]),
      open: true,
      expected: 'none',
    },
    {
      name: 'samples out of order are sorted',
      rule: cpu90for3,
      asset: withSamples([cpu(0, 97), cpu(4, 95), cpu(5, 10)]),
      open: false,
      expected: 'fire',
    },
    {
      name: 'a sample from the future is ignored',
      rule: cpu90now,
      asset: withSamples([
        cpu(1, 10),
        { ts: new Date(now.getTime() + 60_000).toISOString(), cpu: 99, memory: 1, disk: 1 },
      ]),
      open: false,
      expected: 'none',
    },
    {
      name: 'disk with an unknown total says nothing',
      rule: disk80,
      asset: withSamples([{ ts: ago(0), cpu: 1, memory: 1, disk: null }]),
      open: true,
      expected: 'none',
    },
    {
      name: 'disk above fires',
      rule: disk80,
      asset: withSamples([{ ts: ago(0), cpu: 1, memory: 1, disk: 85.25 }]),
      open: false,
      expected: 'fire',
      summary: 'disk 85.3% above 80%',
    },
    {
      name: 'service active: nothing',
      rule: nginx5,
      asset: unit('active', null),
      open: false,
      expected: 'none',
    },
    {
      name: 'service inactive for less than the duration is pending',
      rule: nginx5,
      asset: unit('inactive', 4),
      open: false,
      expected: 'none',
    },
    {
      name: 'service first seen down (no down time yet) is pending',
      rule: nginx5,
      asset: unit('failed', null),
      open: false,
      expected: 'none',
    },
    {
      name: 'service failed for the duration fires',
      rule: nginx5,
      asset: unit('failed', 5),
      open: false,
      expected: 'fire',
      summary: 'service nginx failed for 5 minutes',
    },
    {
      name: 'service inactive with 0 minutes fires at once',
      rule: nginx0,
      asset: unit('inactive', null),
      open: false,
      expected: 'fire',
      summary: 'service nginx inactive',
    },
    {
      name: 'service down and already alerted: nothing new',
      rule: nginx5,
      asset: unit('inactive', 30),
      open: true,
      expected: 'none',
    },
    {
      name: 'service active again resolves',
      rule: nginx5,
      asset: unit('active', null),
      open: true,
      expected: 'resolve',
    },
    {
      name: 'service reloading counts as up',
      rule: nginx5,
      asset: unit('reloading', null),
      open: true,
      expected: 'resolve',
    },
    {
      name: 'service in transition says nothing',
      rule: nginx0,
      asset: unit('deactivating', 10),
      open: true,
      expected: 'none',
    },
    {
      name: 'unknown service (agent lists no such unit, or did not answer) never fires',
      rule: nginx0,
      asset: unit(null, null),
      open: false,
      expected: 'none',
    },
    {
      name: 'unknown service keeps an open alert open',
      rule: nginx0,
      asset: unit(null, null),
      open: true,
      expected: 'none',
    },
    {
      name: 'service rule on an offline asset says nothing (the offline rule does)',
      rule: nginx0,
      asset: unit('failed', 60, 'offline'),
      open: true,
      expected: 'none',
    },
    {
      name: 'service rule with no observation says nothing',
      rule: nginx0,
      asset: presence('online', 0),
      open: false,
      expected: 'none',
    },
    {
      name: 'check failing fewer times than the rule asks: pending',
      rule: checks3,
      asset: withChecks(['down', 2]),
      open: false,
      expected: 'none',
    },
    {
      name: 'check failing as many times as the rule asks fires, on an offline asset too',
      rule: checks3,
      asset: { ...withChecks(['up', 0], ['down', 3]), status: 'offline' },
      open: false,
      expected: 'fire',
      summary: 'check web failed 3 times in a row: status 503',
    },
    {
      name: 'check still failing, not yet up: an open alert stays open',
      rule: checks3,
      asset: withChecks(['down', 1]),
      open: true,
      expected: 'none',
    },
    {
      name: 'every check up again resolves',
      rule: checks3,
      asset: withChecks(['up', 0], ['unknown', 0]),
      open: true,
      expected: 'resolve',
    },
    {
      name: 'no check has run: nothing known',
      rule: checks3,
      asset: withChecks(['unknown', 0]),
      open: true,
      expected: 'none',
    },
  ];

  it.each(table)('$name', ({ rule, asset, open, expected, summary }) => {
    const transition = evaluateRule(rule, asset, open, now);
    expect(transition.type).toBe(expected);
    if (summary !== undefined && transition.type === 'fire') expect(transition.summary).toBe(summary);
  });
});
