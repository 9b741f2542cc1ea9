/**
 * The evaluation loop: every tick, each enabled rule against its assets' presence (assets service) and
 * recent samples (metrics service), through the pure `evaluateRule`. Bounded work per tick: at most
 * `checksPerTick` (rule, asset) pairs, continuing where the last tick stopped when there are more.
 */
import type { AlertRuleKind } from '@svc/protocol';
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import type { AssetService } from '../assets/assets.service.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import { evaluateRule, freshMs, percentOf, type PercentSample } from './alert-evaluation.js';
import type { AlertRuleService } from './alert-rules.service.js';
import { ruleAssets } from './alerts.presenter.js';
import type { AlertRow, AlertRuleRow } from './alerts.repository.js';
import type { AlertService } from './alerts.service.js';

export interface AlertEvaluator {
  /** One pass now; resolves when done (a pass already running is awaited instead). */
  tick(): Promise<{ checked: number; fired: number; resolved: number }>;
  start(): void;
  close(): Promise<void>;
}

const checksPerTick = 5_000;

interface Check {
  rule: AlertRuleRow;
  assetId: string;
}

export function createAlertEvaluator(deps: {
  clock: Clock;
  logger: Logger;
  rules: Pick<AlertRuleService, 'enabled'>;
  alerts: Pick<AlertService, 'open' | 'fire' | 'resolve'>;
  assets: Pick<AssetService, 'presence'>;
  metrics: Pick<MetricsService, 'recentSamples'>;
  intervalMs: number;
}): AlertEvaluator {
  const { clock, rules, alerts, assets, metrics } = deps;
  let cursor = 0;
  let running: Promise<{ checked: number; fired: number; resolved: number }> | null = null;
  let timer: NodeJS.Timeout | null = null;

  async function checksNow(): Promise<Check[]> {
    const enabled = await rules.enabled();
    const everyAsset = enabled.some((r) => ruleAssets(r).length === 0)
      ? (await assets.presence(null, checksPerTick)).map((a) => a.id)
      : [];
    const checks: Check[] = [];
    for (const rule of enabled) {
      const ids = ruleAssets(rule);
      for (const assetId of ids.length > 0 ? ids : everyAsset) checks.push({ rule, assetId });
    }
    return checks;
  }

  async function pass(): Promise<{ checked: number; fired: number; resolved: number }> {
    const all = await checksNow();
    if (cursor >= all.length) cursor = 0;
    const checks = all.slice(cursor, cursor + checksPerTick);
    cursor = all.length > checksPerTick ? cursor + checks.length : 0;

    const now = clock.now();
    const assetIds = [...new Set(checks.map((c) => c.assetId))];
    const presence = new Map((await assets.presence(assetIds, assetIds.length)).map((a) => [a.id, a]));
    const longest = Math.max(
      0,
      ...checks.filter((c) => c.rule.kind !== 'offline').map((c) => c.rule.duration_minutes),
    );
    const metricAssets = [...new Set(checks.filter((c) => c.rule.kind !== 'offline').map((c) => c.assetId))];
    const since = new Date(now.getTime() - longest * 60_000 - freshMs);
    const samples = await metrics.recentSamples(metricAssets, since);
    const open = new Map<string, AlertRow>();
    for (const alert of await alerts.open()) open.set(`${alert.rule_id}|${alert.asset_id}`, alert);

    let fired = 0;
    let resolved = 0;
    for (const { rule, assetId } of checks) {
      const asset = presence.get(assetId);
      if (!asset) continue;
      const percents: PercentSample[] = (samples.get(assetId) ?? []).map((s) => ({
        ts: s.ts,
        cpu: s.cpu_percent,
        memory: percentOf(s.memory_used_bytes, s.memory_total_bytes),
        disk: percentOf(s.disk_used_bytes, s.disk_total_bytes),
      }));
      const openAlert = open.get(`${rule.id}|${assetId}`);
      const transition = evaluateRule(
        {
          kind: rule.kind as AlertRuleKind,
          thresholdPercent: rule.threshold_percent,
          durationMinutes: rule.duration_minutes,
        },
        { status: asset.status, lastSeenAt: asset.last_seen_at, samples: percents },
        openAlert !== undefined,
        now,
      );
      if (transition.type === 'fire') {
        await alerts.fire(rule, asset, transition);
        fired++;
      } else if (transition.type === 'resolve' && openAlert) {
        await alerts.resolve(openAlert);
        resolved++;
      }
    }
    return { checked: checks.length, fired, resolved };
  }

  function tick() {
    if (running) return running;
    running = pass().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    tick,
    start() {
      timer = setInterval(() => {
        tick().catch((error: unknown) => {
          deps.logger.error({ err: error }, 'alert evaluation failed');
        });
      }, deps.intervalMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      await running?.catch(() => undefined);
    },
  };
}
