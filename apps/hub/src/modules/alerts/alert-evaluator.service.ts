/**
 * The evaluation loop: every tick, each enabled rule against its assets' presence (assets service), recent
 * samples (metrics service) and, for service rules, the state the online assets' agents report of their
 * services (system service), through the pure `evaluateRule`. Bounded work per tick: at most `checksPerTick`
 * (rule, asset) pairs, continuing where the last tick stopped when there are more; at most
 * `serviceConcurrency` agent questions in flight, each given `serviceTimeoutMs`. Passes run one at a time.
 */
import type { AlertRuleKind } from '@svc/protocol';
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import type { AssetService } from '../assets/assets.service.js';
import type { MaintenanceService } from '../maintenance/maintenance.service.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import type { SystemService } from '../system/system.service.js';
import {
  evaluateRule,
  freshMs,
  percentOf,
  serviceStateClass,
  type CheckObservation,
  type PercentSample,
  type ServiceObservation,
} from './alert-evaluation.js';
import type { AlertRuleService } from './alert-rules.service.js';
import { ruleAssets } from './alerts.presenter.js';
import type { AlertRow, AlertRuleRow } from './alerts.repository.js';
import type { AlertService } from './alerts.service.js';

export interface AlertEvaluator {
  /** One pass now; resolves when done (a pass already running is awaited instead). */
  tick(): Promise<PassResult>;
  /** A pass over the service rules watching `service` on `assetId` only (after a `service.stopped` event). */
  checkService(assetId: string, service: string): Promise<PassResult>;
  start(): void;
  close(): Promise<void>;
}

interface PassResult {
  checked: number;
  fired: number;
  resolved: number;
}

const checksPerTick = 5_000;
/** Agents asked about their services at once, and how long each gets to answer. */
const serviceConcurrency = 8;
const serviceTimeoutMs = 10_000;

interface Check {
  rule: AlertRuleRow;
  assetId: string;
}

interface ServiceFocus {
  assetId: string;
  service: string;
}

const isMetric = (c: Check) =>
  c.rule.kind !== 'offline' && c.rule.kind !== 'service' && c.rule.kind !== 'check';
/** `nginx` and `nginx.service` name the same unit. */
const unitName = (name: string) => (name.endsWith('.service') ? name : `${name}.service`);
const checkKey = (ruleId: string, assetId: string) => `${ruleId}|${assetId}`;

export function createAlertEvaluator(deps: {
  clock: Clock;
  logger: Logger;
  rules: Pick<AlertRuleService, 'enabled'>;
  alerts: Pick<AlertService, 'open' | 'fire' | 'promote' | 'resolve'>;
  /** Which assets are in a maintenance window: their new alerts are recorded suppressed (decision 0078). */
  maintenance: Pick<MaintenanceService, 'holding'>;
  assets: Pick<AssetService, 'presence'>;
  metrics: Pick<MetricsService, 'recentSamples'>;
  services: Pick<SystemService, 'serviceStates'>;
  /** The service checks about each of these assets (the checks module), for check rules. */
  checks: (assetIds: readonly string[]) => Promise<Map<string, CheckObservation[]>>;
  intervalMs: number;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}): AlertEvaluator {
  const { clock, rules, alerts, assets, metrics, services } = deps;
  let cursor = 0;
  let running: Promise<PassResult> | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  /** Per (service rule, asset): when the unit was first seen down in the current run (kept in memory). */
  const downSince = new Map<string, string>();

  /** Passes one at a time, so two never fire the same alert. */
  function enqueue(job: () => Promise<PassResult>): Promise<PassResult> {
    const result = queue.then(job);
    queue = result.catch(() => undefined);
    return result;
  }

  /** Each asset's service states, asked with bounded concurrency; an asset that did not answer is absent. */
  async function serviceStatesOf(
    assetIds: readonly string[],
  ): Promise<Map<string, Map<string, string> | null>> {
    const out = new Map<string, Map<string, string> | null>();
    let next = 0;
    async function worker(): Promise<void> {
      for (let id = assetIds[next++]; id !== undefined; id = assetIds[next++]) {
        try {
          out.set(id, await services.serviceStates(id, serviceTimeoutMs));
        } catch (error) {
          deps.logger.debug({ err: error, asset_id: id }, 'service states not known this pass');
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(assetIds.length, serviceConcurrency) }, worker));
    return out;
  }

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

  async function pass(focus?: ServiceFocus): Promise<PassResult> {
    const all = await checksNow();
    let checks: Check[];
    if (focus) {
      checks = all.filter(
        (c) =>
          c.rule.kind === 'service' &&
          unitName(c.rule.service ?? '') === unitName(focus.service) &&
          c.assetId === focus.assetId,
      );
    } else {
      if (cursor >= all.length) cursor = 0;
      checks = all.slice(cursor, cursor + checksPerTick);
      cursor = all.length > checksPerTick ? cursor + checks.length : 0;
      // Forget down times of rules and assets no longer watched.
      const watched = new Set(all.map((c) => checkKey(c.rule.id, c.assetId)));
      for (const key of downSince.keys()) if (!watched.has(key)) downSince.delete(key);
    }

    const now = clock.now();
    const assetIds = [...new Set(checks.map((c) => c.assetId))];
    const presence = new Map((await assets.presence(assetIds, assetIds.length)).map((a) => [a.id, a]));
    const longest = Math.max(0, ...checks.filter(isMetric).map((c) => c.rule.duration_minutes));
    const metricAssets = [...new Set(checks.filter(isMetric).map((c) => c.assetId))];
    const since = new Date(now.getTime() - longest * 60_000 - freshMs);
    const samples = await metrics.recentSamples(metricAssets, since);
    const serviceAssets = [
      ...new Set(checks.filter((c) => c.rule.kind === 'service').map((c) => c.assetId)),
    ].filter((id) => presence.get(id)?.status === 'online');
    const states = await serviceStatesOf(serviceAssets);
    const inWindow = await deps.maintenance.holding(now);
    const checkAssets = [...new Set(checks.filter((c) => c.rule.kind === 'check').map((c) => c.assetId))];
    const checkStates =
      checkAssets.length > 0 ? await deps.checks(checkAssets) : new Map<string, CheckObservation[]>();
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
      const service =
        rule.kind === 'service' ? observeService(rule, assetId, asset.status, states, now) : undefined;
      const openAlert = open.get(checkKey(rule.id, assetId));
      const judge = (alertOpen: boolean) =>
        evaluateRule(
          {
            kind: rule.kind as AlertRuleKind,
            thresholdPercent: rule.threshold_percent,
            service: rule.service,
            durationMinutes: rule.duration_minutes,
            failures: rule.failures ?? null,
          },
          {
            status: asset.status,
            lastSeenAt: asset.last_seen_at,
            samples: percents,
            ...(service ? { service } : {}),
            ...(rule.kind === 'check' ? { checks: checkStates.get(assetId) ?? [] } : {}),
          },
          alertOpen,
          now,
        );
      const transition = judge(openAlert !== undefined);
      if (transition.type === 'resolve' && openAlert) {
        await alerts.resolve(openAlert);
        resolved++;
      } else if (openAlert?.state === 'suppressed') {
        // Its window over and the condition still holding, it fires now, as after an Alertmanager silence.
        const still = inWindow.has(assetId) ? null : judge(false);
        if (still?.type === 'fire') {
          await alerts.promote(openAlert, still);
          fired++;
        }
      } else if (transition.type === 'fire') {
        const windowId = inWindow.get(assetId) ?? null;
        await alerts.fire(rule, asset, transition, windowId);
        if (windowId === null) fired++;
      }
    }
    return { checked: checks.length, fired, resolved };
  }

  /** What this pass saw of a service rule's unit on one asset, keeping the time it was first seen down. */
  function observeService(
    rule: AlertRuleRow,
    assetId: string,
    status: string,
    states: Map<string, Map<string, string> | null>,
    now: Date,
  ): ServiceObservation | undefined {
    const key = checkKey(rule.id, assetId);
    // Offline assets are not asked (the offline rule's business); a run of down observations ends there.
    if (status !== 'online') {
      downSince.delete(key);
      return undefined;
    }
    // Units are listed as `nginx.service`; a rule may name `nginx`.
    const listed = states.get(assetId);
    const name = rule.service ?? '';
    const state = listed?.get(name) ?? listed?.get(unitName(name)) ?? null;
    const stateClass = serviceStateClass(state);
    if (stateClass === 'up') downSince.delete(key);
    if (stateClass === 'down' && !downSince.has(key)) downSince.set(key, now.toISOString());
    return { state, downSince: downSince.get(key) ?? null };
  }

  function tick() {
    if (running) return running;
    running = enqueue(() => pass()).finally(() => {
      running = null;
    });
    return running;
  }

  return {
    tick,
    checkService: (assetId, service) => enqueue(() => pass({ assetId, service })),
    start() {
      timer = setInterval(() => {
        // Two evaluators would fire each alert twice: only the lease's holder evaluates.
        if (deps.runsHere && !deps.runsHere()) return;
        tick().catch((error: unknown) => {
          deps.logger.error({ err: error }, 'alert evaluation failed');
        });
      }, deps.intervalMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      await queue;
    },
  };
}
