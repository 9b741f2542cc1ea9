/**
 * Service checks as callers manage them: a check about an asset is seen by whoever may see the asset, one
 * about no asset by unrestricted callers only. Every change is audited; runs are not (they are the history).
 * Choosing an agent to run a check (decision 0084) takes what running a command there takes.
 */
import {
  checkLimits,
  newId,
  type CheckKind,
  type CheckStatus,
  type DiscoverySuggestion,
  type ServiceCheck,
  type ServiceCheckCreate,
  type ServiceCheckFromSuggestion,
  type ServiceCheckResult,
  type ServiceCheckUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { canSeeAsset, isRestricted, type ActionContext, type Principal } from '../../access/principal.js';
import type { AssetReads } from '../../agents/asset-reads.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DiscoveryService } from '../discovery/discovery.service.js';
import type { CheckRunner } from './check-runner.js';
import { formatCheckTarget, parseCheckTarget } from '@svc/protocol/node/checks';
import { checkRunFrom } from './check-run-from.js';
import { presentCheck, presentResult } from './checks.presenter.js';
import {
  checksOfAssets,
  countChecks,
  deleteCheck,
  findCheck,
  insertCheck,
  listChecks,
  listResults,
  updateCheck,
  uptimeSince,
  type CheckRow,
} from './checks.repository.js';

export interface CheckService {
  create(ctx: ActionContext, input: ServiceCheckCreate): Promise<ServiceCheck>;
  list(
    principal: Principal,
    query: { asset?: string | undefined; status?: CheckStatus | undefined },
    page: PageRequest,
  ): Promise<Page<ServiceCheck>>;
  get(principal: Principal, id: string): Promise<ServiceCheck>;
  update(ctx: ActionContext, id: string, input: ServiceCheckUpdate): Promise<ServiceCheck>;
  remove(ctx: ActionContext, id: string): Promise<ServiceCheck>;
  runNow(ctx: ActionContext, id: string): Promise<ServiceCheckResult>;
  results(principal: Principal, id: string, page: PageRequest): Promise<Page<ServiceCheckResult>>;
  fromSuggestion(ctx: ActionContext, input: ServiceCheckFromSuggestion): Promise<ServiceCheck>;
  /** The enabled checks about each of these assets, as they stand (alert rules of kind `check`). */
  statesOf(assetIds: readonly string[]): Promise<Map<string, CheckState[]>>;
}

interface CheckState {
  name: string;
  status: string;
  consecutiveFailures: number;
  lastError: string | null;
}

export interface CheckServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  assets: Pick<AssetReads, 'row'>;
  discovery: Pick<DiscoveryService, 'suggestion'>;
  runner: Pick<CheckRunner, 'run'>;
  /** Random in [0, 1): where in its first interval a new check first runs, so checks spread out. */
  random?: () => number;
}

const dayMs = 24 * 60 * 60 * 1000;

export function createCheckService(deps: CheckServiceDeps): CheckService {
  const { db, clock, audit } = deps;
  const random = deps.random ?? Math.random;

  function visible(principal: Principal, row: Pick<CheckRow, 'asset_id' | 'run_from_asset_id'>): boolean {
    // A check run from an agent also needs that asset seen: its results name it (decision 0084).
    if (row.run_from_asset_id !== null && !canSeeAsset(principal, row.run_from_asset_id)) return false;
    return row.asset_id === null ? !isRestricted(principal) : canSeeAsset(principal, row.asset_id);
  }

  async function loadVisible(principal: Principal, id: string): Promise<CheckRow> {
    const row = await findCheck(db, id);
    if (!row || !visible(principal, row)) throw new HubError('not_found', `no service check ${id}`);
    return row;
  }

  /** The asset a check is about: it exists and the caller may see it; a restricted caller must name one. */
  async function checkAsset(principal: Principal, assetId: string | null): Promise<void> {
    if (assetId === null) {
      if (isRestricted(principal)) {
        throw validationError('asset_id', 'a key limited to some assets must name one of them');
      }
      return;
    }
    if (!canSeeAsset(principal, assetId) || !(await deps.assets.row(assetId))) {
      throw new HubError('not_found', `no asset ${assetId}`);
    }
  }

  function storedTarget(kind: CheckKind, text: string): string {
    const parsed = parseCheckTarget(kind, text);
    if (!parsed.ok) throw validationError('target', parsed.problem);
    return formatCheckTarget(parsed.target);
  }

  function checkHttpOnly(kind: CheckKind, input: ServiceCheckUpdate): void {
    if (kind === 'http') return;
    for (const field of ['expected_status', 'expected_body'] as const) {
      if (input[field] !== undefined && input[field] !== null) {
        throw validationError(field, 'only for http checks');
      }
    }
  }

  async function presentMany(rows: readonly CheckRow[]): Promise<ServiceCheck[]> {
    const now = clock.now();
    const ids = rows.map((r) => r.id);
    const [day, week] = await Promise.all([
      uptimeSince(db, ids, new Date(now.getTime() - dayMs).toISOString()),
      uptimeSince(db, ids, new Date(now.getTime() - 7 * dayMs).toISOString()),
    ]);
    return rows.map((row) => presentCheck(row, { day: day.get(row.id), week: week.get(row.id) }, now));
  }

  async function presentOne(row: CheckRow): Promise<ServiceCheck> {
    const [check] = await presentMany([row]);
    if (!check) throw new Error('a presented check went missing');
    return check;
  }

  /** When a check that starts now first runs: somewhere in its first interval (at most a minute away). */
  function firstRun(intervalS: number): string {
    const spread = Math.min(intervalS, 60) * 1000;
    return new Date(clock.now().getTime() + Math.floor(random() * spread)).toISOString();
  }

  async function create(ctx: ActionContext, input: ServiceCheckCreate): Promise<ServiceCheck> {
    checkHttpOnly(input.kind, input);
    const target = storedTarget(input.kind, input.target);
    const assetId = input.asset_id ?? null;
    await checkAsset(ctx.principal, assetId);
    const runFrom = input.run_from_asset_id ?? null;
    await checkRunFrom(deps.assets, ctx.principal, runFrom);
    if ((await countChecks(db)) >= checkLimits.checks) {
      throw new HubError('conflict', `the hub holds at most ${String(checkLimits.checks)} service checks`);
    }
    const now = clock.now().toISOString();
    const interval = input.interval_seconds ?? checkLimits.defaultIntervalSeconds;
    const enabled = input.enabled !== false;
    const row: CheckRow = {
      id: newId('serviceCheck'),
      name: input.name,
      kind: input.kind,
      target,
      asset_id: assetId,
      run_from_asset_id: runFrom,
      interval_s: interval,
      timeout_s: Math.min(input.timeout_seconds ?? checkLimits.defaultTimeoutSeconds, interval),
      expected_status: input.expected_status ? JSON.stringify(input.expected_status) : null,
      expected_body: input.expected_body ?? null,
      tls_verify: input.tls_verify === false ? 0 : 1,
      cert_warn_days: input.cert_warn_days ?? checkLimits.defaultCertWarnDays,
      enabled: enabled ? 1 : 0,
      status: 'unknown',
      consecutive_failures: 0,
      last_run_at: null,
      last_latency_ms: null,
      last_status_code: null,
      last_error: null,
      cert_expires_at: null,
      cert_warned_for: null,
      next_run_at: enabled ? firstRun(interval) : null,
      created_at: now,
      updated_at: now,
    };
    await db.transaction().execute(async (trx) => {
      await insertCheck(trx, row);
      await audit.record(trx, ctx, {
        action: 'check.created',
        targetType: 'service_check',
        targetId: row.id,
        detail: {
          name: row.name,
          kind: row.kind,
          target: row.target,
          ...(runFrom !== null ? { run_from_asset_id: runFrom } : {}),
        },
      });
    });
    return presentOne(row);
  }

  return {
    create,

    async list(principal, query, page) {
      const rows = (await listChecks(db)).filter(
        (r) =>
          visible(principal, r) &&
          (query.asset === undefined || r.asset_id === query.asset) &&
          (query.status === undefined || r.status === query.status),
      );
      const start = (page.page - 1) * page.perPage;
      return toPage(await presentMany(rows.slice(start, start + page.perPage)), rows.length, page);
    },

    async get(principal, id) {
      return presentOne(await loadVisible(principal, id));
    },

    async update(ctx, id, input) {
      const row = await loadVisible(ctx.principal, id);
      const kind = row.kind as CheckKind;
      checkHttpOnly(kind, input);
      const changes: Partial<CheckRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.target !== undefined) changes.target = storedTarget(kind, input.target);
      if (input.asset_id !== undefined) {
        await checkAsset(ctx.principal, input.asset_id);
        changes.asset_id = input.asset_id;
      }
      // Changing what an agent probes takes what choosing that agent takes (moving it to the hub does not).
      await checkRunFrom(
        deps.assets,
        ctx.principal,
        input.run_from_asset_id !== undefined ? input.run_from_asset_id : row.run_from_asset_id,
      );
      if (input.run_from_asset_id !== undefined) changes.run_from_asset_id = input.run_from_asset_id;
      if (input.interval_seconds !== undefined) changes.interval_s = input.interval_seconds;
      if (input.timeout_seconds !== undefined) changes.timeout_s = input.timeout_seconds;
      const interval = changes.interval_s ?? row.interval_s;
      if ((changes.timeout_s ?? row.timeout_s) > interval) changes.timeout_s = interval;
      if (input.expected_status !== undefined)
        changes.expected_status =
          input.expected_status === null ? null : JSON.stringify(input.expected_status);
      if (input.expected_body !== undefined) changes.expected_body = input.expected_body;
      if (input.tls_verify !== undefined) changes.tls_verify = input.tls_verify ? 1 : 0;
      if (input.cert_warn_days !== undefined) changes.cert_warn_days = input.cert_warn_days;
      const enabled = input.enabled ?? row.enabled === 1;
      changes.enabled = enabled ? 1 : 0;
      if (!enabled) changes.next_run_at = null;
      else if (row.enabled === 0 || input.interval_seconds !== undefined || input.target !== undefined)
        changes.next_run_at = firstRun(interval);
      // Another target is another service: its state starts over.
      if (changes.target !== undefined && changes.target !== row.target) {
        Object.assign(changes, {
          status: 'unknown',
          consecutive_failures: 0,
          cert_expires_at: null,
          cert_warned_for: null,
        });
      }
      const action =
        input.enabled === false && row.enabled === 1
          ? 'check.paused'
          : input.enabled === true && row.enabled === 0
            ? 'check.resumed'
            : 'check.updated';
      await db.transaction().execute(async (trx) => {
        await updateCheck(trx, id, changes);
        await audit.record(trx, ctx, {
          action,
          targetType: 'service_check',
          targetId: id,
          detail: { name: changes.name ?? row.name, fields: Object.keys(input) },
        });
      });
      return presentOne({ ...row, ...changes });
    },

    async remove(ctx, id) {
      const row = await loadVisible(ctx.principal, id);
      const presented = await presentOne(row);
      await db.transaction().execute(async (trx) => {
        await deleteCheck(trx, id);
        await audit.record(trx, ctx, {
          action: 'check.deleted',
          targetType: 'service_check',
          targetId: id,
          detail: { name: row.name },
        });
      });
      return presented;
    },

    async runNow(ctx, id) {
      const row = await loadVisible(ctx.principal, id);
      await audit.recordIntent(ctx, [
        { action: 'check.run', targetType: 'service_check', targetId: id, detail: { name: row.name } },
      ]);
      return presentResult(await deps.runner.run(row));
    },

    async results(principal, id, page) {
      await loadVisible(principal, id);
      const { rows, total } = await listResults(db, id, pageWindow(page));
      return toPage(rows.map(presentResult), total, page);
    },

    async statesOf(assetIds) {
      const out = new Map<string, CheckState[]>();
      for (const row of await checksOfAssets(db, assetIds)) {
        if (row.asset_id === null) continue;
        const state: CheckState = {
          name: row.name,
          status: row.status,
          consecutiveFailures: row.consecutive_failures,
          lastError: row.last_error,
        };
        out.set(row.asset_id, [...(out.get(row.asset_id) ?? []), state]);
      }
      return out;
    },

    async fromSuggestion(ctx, input) {
      const suggestion = await deps.discovery.suggestion(input.suggestion_id);
      const made = await checkOfSuggestion(suggestion);
      return create(ctx, {
        ...made,
        ...(input.interval_seconds !== undefined ? { interval_seconds: input.interval_seconds } : {}),
      });
    },
  };

  /** What a suggestion becomes: its kind and target, named after it, about its asset. */
  async function checkOfSuggestion(s: DiscoverySuggestion): Promise<ServiceCheckCreate> {
    const name = s.title.slice(0, 120);
    if (s.kind === 'host') {
      if (s.detail.address === undefined) throw validationError('suggestion_id', 'the host has no address');
      return { name, kind: 'ping', target: s.detail.address, asset_id: s.created_asset_id };
    }
    const port = s.kind === 'port' ? s.detail.port : s.detail.ports?.[0];
    if (port === undefined || s.asset_id === null) {
      throw validationError('suggestion_id', 'the suggestion names no published port to check');
    }
    const host = await hostOf(s.asset_id, s.kind === 'port' ? (s.detail.address ?? '') : '');
    return {
      name,
      kind: 'tcp',
      target: `${host.includes(':') ? `[${host}]` : host}:${String(port)}`,
      asset_id: s.asset_id,
    };
  }

  /** The address a service listens on, or (for a wildcard) the asset's first address or its host name. */
  async function hostOf(assetId: string, listened: string): Promise<string> {
    const specific = listened
      .split(',')
      .map((a) => a.trim())
      .find((a) => a !== '' && a !== '0.0.0.0' && a !== '::' && a !== '*');
    if (specific !== undefined) return specific;
    const asset = await deps.assets.row(assetId);
    const addresses = asset ? (JSON.parse(asset.ip_addresses) as unknown) : [];
    const first = Array.isArray(addresses) ? addresses.find((a) => typeof a === 'string') : undefined;
    if (typeof first === 'string') return first;
    if (asset?.hostname) return asset.hostname;
    throw validationError('suggestion_id', 'the asset has no address or host name to check');
  }
}
