/**
 * Alert rules: what the evaluator watches. A key limited to some assets sees and manages only rules naming
 * assets it may all see; a rule over every asset (no asset ids) is for unrestricted callers (decision 0017).
 */
import {
  alertLimits,
  newId,
  type AlertRule,
  type AlertRuleCreate,
  type AlertRuleKind,
  type AlertRuleUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { canSeeAsset, type ActionContext, type Principal } from '../../access/principal.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { checkServiceName } from '../system/system.service.js';
import { presentRule, ruleAssets } from './alerts.presenter.js';
import {
  countRules,
  deleteRule,
  findRule,
  insertRule,
  listRules,
  updateRule,
  type AlertRuleRow,
} from './alerts.repository.js';

export interface AlertRuleService {
  list(principal: Principal, page: PageRequest): Promise<Page<AlertRule>>;
  create(ctx: ActionContext, input: AlertRuleCreate): Promise<AlertRule>;
  update(ctx: ActionContext, id: string, input: AlertRuleUpdate): Promise<AlertRule>;
  /** Removes the rule; `onRemoved` (the alerts service) resolves its open alerts. */
  remove(ctx: ActionContext, id: string): Promise<AlertRule>;
  /** Every enabled rule, for the evaluator. */
  enabled(): Promise<AlertRuleRow[]>;
}

function ruleVisible(principal: Principal, row: Pick<AlertRuleRow, 'asset_ids'>): boolean {
  if (principal.allowedAssets === null) return true;
  const ids = ruleAssets(row);
  return ids.length > 0 && ids.every((id) => canSeeAsset(principal, id));
}

/** A metric rule needs a threshold; offline, service and check rules have none. */
function checkThreshold(kind: AlertRuleKind, threshold: number | null | undefined): number | null {
  if (kind === 'offline' || kind === 'service' || kind === 'check') {
    if (threshold !== undefined && threshold !== null) {
      throw validationError(
        'threshold_percent',
        `a${kind === 'offline' ? 'n' : ''} ${kind} rule has no threshold`,
      );
    }
    return null;
  }
  if (threshold === undefined || threshold === null) {
    throw validationError('threshold_percent', `a ${kind} rule needs a threshold between 0 and 100`);
  }
  return threshold;
}

/** A service rule names the unit it watches (checked like the system module's service names); others none. */
function checkRuleService(kind: AlertRuleKind, service: string | null | undefined): string | null {
  if (kind !== 'service') {
    if (service !== undefined && service !== null) {
      throw validationError('service', `a ${kind} rule watches no service`);
    }
    return null;
  }
  if (service === undefined || service === null) {
    throw validationError('service', 'a service rule needs the name of the service it watches');
  }
  try {
    return checkServiceName(service);
  } catch {
    throw validationError('service', "must be a service name: letters, digits and @ . _ : -, not '-' first");
  }
}

/** A check rule fires after this many failed runs in a row (3 by default); other kinds have no count. */
function checkFailures(kind: AlertRuleKind, failures: number | null | undefined): number | null {
  if (kind !== 'check') {
    if (failures !== undefined && failures !== null) {
      throw validationError('failures', `a ${kind} rule counts no failed checks`);
    }
    return null;
  }
  return failures ?? 3;
}

export function createAlertRuleService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  assets: Pick<AssetService, 'missingIds'>;
  onRemoved: (ctx: ActionContext, ruleId: string) => Promise<void>;
}): AlertRuleService {
  const { db, clock, audit, assets } = deps;

  async function loadVisible(principal: Principal, id: string): Promise<AlertRuleRow> {
    const row = await findRule(db, id);
    if (!row || !ruleVisible(principal, row)) throw new HubError('not_found', `no alert rule ${id}`);
    return row;
  }

  async function checkAssets(principal: Principal, ids: readonly string[]): Promise<void> {
    const hidden = ids.filter((id) => !canSeeAsset(principal, id));
    const missing = await assets.missingIds(ids.filter((id) => canSeeAsset(principal, id)));
    const unknown = [...hidden, ...missing];
    if (unknown.length > 0) throw validationError('asset_ids', `unknown asset ids: ${unknown.join(', ')}`);
    if (principal.allowedAssets !== null && ids.length === 0) {
      throw validationError('asset_ids', 'a key limited to some assets must name at least one of them');
    }
  }

  return {
    async list(principal, page) {
      const visible = (await listRules(db, alertLimits.rules)).filter((r) => ruleVisible(principal, r));
      const window = pageWindow(page);
      const items = visible.slice(window.offset, window.offset + window.limit).map(presentRule);
      return toPage(items, visible.length, page);
    },

    async create(ctx, input) {
      const assetIds = input.asset_ids ?? [];
      await checkAssets(ctx.principal, assetIds);
      const threshold = checkThreshold(input.kind, input.threshold_percent);
      const service = checkRuleService(input.kind, input.service);
      const failures = checkFailures(input.kind, input.failures);
      if ((await countRules(db)) >= alertLimits.rules) {
        throw new HubError('conflict', `at most ${alertLimits.rules} alert rules`);
      }
      const now = clock.now().toISOString();
      const row: AlertRuleRow = {
        id: newId('alertRule'),
        name: input.name,
        kind: input.kind,
        severity: input.severity ?? 'warning',
        threshold_percent: threshold,
        service,
        duration_minutes: input.duration_minutes ?? (input.kind === 'check' ? 0 : 5),
        failures,
        asset_ids: JSON.stringify([...assetIds].sort()),
        enabled: input.enabled === false ? 0 : 1,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await insertRule(trx, row);
        await audit.record(trx, ctx, {
          action: 'alert_rule.created',
          targetType: 'alert_rule',
          targetId: row.id,
          detail: { name: row.name, kind: row.kind, service: row.service, assets: assetIds.length },
        });
      });
      return presentRule(row);
    },

    async update(ctx, id, input) {
      const row = await loadVisible(ctx.principal, id);
      if (input.asset_ids !== undefined) await checkAssets(ctx.principal, input.asset_ids);
      const kind = row.kind as AlertRuleKind;
      const changes: Partial<AlertRuleRow> = { updated_at: clock.now().toISOString() };
      if (input.threshold_percent !== undefined) {
        changes.threshold_percent = checkThreshold(kind, input.threshold_percent);
      }
      if (input.service !== undefined) changes.service = checkRuleService(kind, input.service);
      if (input.failures !== undefined) changes.failures = checkFailures(kind, input.failures);
      if (input.name !== undefined) changes.name = input.name;
      if (input.severity !== undefined) changes.severity = input.severity;
      if (input.duration_minutes !== undefined) changes.duration_minutes = input.duration_minutes;
      if (input.asset_ids !== undefined) changes.asset_ids = JSON.stringify([...input.asset_ids].sort());
      if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
      await db.transaction().execute(async (trx) => {
        await updateRule(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'alert_rule.updated',
          targetType: 'alert_rule',
          targetId: id,
          detail: { fields: Object.keys(input) },
        });
      });
      return presentRule({ ...row, ...changes });
    },

    async remove(ctx, id) {
      const row = await loadVisible(ctx.principal, id);
      await db.transaction().execute(async (trx) => {
        await deleteRule(trx, id);
        await audit.record(trx, ctx, {
          action: 'alert_rule.deleted',
          targetType: 'alert_rule',
          targetId: id,
          detail: { name: row.name },
        });
      });
      await deps.onRemoved(ctx, id);
      return presentRule(row);
    },

    enabled: async () => (await listRules(db, alertLimits.rules)).filter((r) => r.enabled === 1),
  };
}
