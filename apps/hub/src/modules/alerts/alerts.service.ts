/**
 * Alerts and incidents: raised and resolved by the evaluator, acknowledged and silenced by people; an alert
 * joins its asset's open incident or opens one; incidents are resolved by people only (decision 0017).
 * A caller sees only alerts and incidents of assets it may see; others answer 404 as if absent.
 */
import {
  alertLimits,
  newId,
  type Alert,
  type AlertListQuery,
  type AlertSeverity,
  type AlertSilence,
  type Incident,
  type IncidentListQuery,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { actorOf, canSeeAsset, type ActionContext, type Principal } from '../../access/principal.js';
import { visibleAssetIds } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { presentAlert, presentIncident, severityRank } from './alerts.presenter.js';
import {
  findAlert,
  findIncident,
  findOpenIncident,
  incidentAlertCounts,
  insertAlert,
  insertIncident,
  listAlerts,
  listIncidentAlerts,
  listIncidents,
  listOpenAlerts,
  updateAlert,
  updateIncident,
  type AlertRow,
  type AlertRuleRow,
  type IncidentRow,
} from './alerts.repository.js';

export interface AlertService {
  list(principal: Principal, query: AlertListQuery, page: PageRequest): Promise<Page<Alert>>;
  acknowledge(ctx: ActionContext, id: string): Promise<Alert>;
  silence(ctx: ActionContext, id: string, input: AlertSilence): Promise<Alert>;
  listIncidents(principal: Principal, query: IncidentListQuery, page: PageRequest): Promise<Page<Incident>>;
  resolveIncident(ctx: ActionContext, id: string): Promise<Incident>;
  /** One incident the principal may see (404 otherwise), and its alerts, oldest first, at most `alertLimit`. */
  incidentWithAlerts(
    principal: Principal,
    id: string,
    alertLimit: number,
  ): Promise<{ incident: Incident; alerts: Alert[] }>;

  // The evaluator's side.
  /** Alerts not resolved yet, of every rule. */
  open(): Promise<AlertRow[]>;
  /**
   * Raises an alert. With `suppressedBy` (the maintenance window holding its asset) it is recorded
   * `suppressed`: no incident, no event, so nothing is notified (decision 0078).
   */
  fire(
    rule: AlertRuleRow,
    asset: { id: string; name: string },
    found: { value: number | null; summary: string },
    suppressedBy?: string | null,
  ): Promise<void>;
  /** A suppressed alert whose window has ended while its condition still holds: it fires now. */
  promote(alert: AlertRow, found: { value: number | null; summary: string }): Promise<void>;
  /** Resolves an alert; a suppressed one quietly (it was never announced). */
  resolve(alert: AlertRow): Promise<void>;
  /** Resolves the open alerts of a deleted rule or asset. */
  resolveWhere(match: (alert: AlertRow) => boolean): Promise<void>;
}

function maxSeverity(a: string, b: string): AlertSeverity {
  const ra = severityRank[a as AlertSeverity];
  const rb = severityRank[b as AlertSeverity];
  return (ra >= rb ? a : b) as AlertSeverity;
}

export function createAlertService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
}): AlertService {
  const { db, clock, audit, events } = deps;

  function publishAlert(
    type: 'alert.fired' | 'alert.acknowledged' | 'alert.silenced' | 'alert.resolved',
    row: AlertRow,
  ): void {
    events.publish(type, {
      asset_ids: [row.asset_id],
      alert_id: row.id,
      rule_id: row.rule_id,
      asset_id: row.asset_id,
      asset_name: row.asset_name,
      severity: row.severity as AlertSeverity,
      summary: row.summary,
    });
  }

  function publishIncident(
    type: 'incident.created' | 'incident.updated' | 'incident.resolved',
    row: IncidentRow,
  ): void {
    events.publish(type, {
      asset_ids: [row.asset_id],
      incident_id: row.id,
      asset_id: row.asset_id,
      severity: row.severity as AlertSeverity,
      title: row.title,
    });
  }

  async function loadAlert(principal: Principal, id: string): Promise<AlertRow> {
    const row = await findAlert(db, id);
    if (!row || !canSeeAsset(principal, row.asset_id)) throw new HubError('not_found', `no alert ${id}`);
    return row;
  }

  async function resolveRow(alert: AlertRow): Promise<void> {
    const resolved: AlertRow = { ...alert, state: 'resolved', resolved_at: clock.now().toISOString() };
    await updateAlert(db, alert.id, { state: resolved.state, resolved_at: resolved.resolved_at });
    // A suppressed alert was never announced: its end is not either.
    if (alert.state !== 'suppressed') publishAlert('alert.resolved', resolved);
  }

  /** The alert joins its asset's open incident, or opens one; written with `write` in one transaction. */
  async function withIncident(
    alert: AlertRow,
    write: (trx: Executor, incidentId: string) => Promise<void>,
  ): Promise<{ row: IncidentRow; created: boolean }> {
    const now = clock.now().toISOString();
    return db.transaction().execute(async (trx) => {
      const current = await findOpenIncident(trx, alert.asset_id);
      if (current) {
        const changes = { severity: maxSeverity(current.severity, alert.severity), updated_at: now };
        await updateIncident(trx, current.id, changes);
        await write(trx, current.id);
        return { row: { ...current, ...changes }, created: false };
      }
      const created: IncidentRow = {
        id: newId('incident'),
        asset_id: alert.asset_id,
        title: `${alert.asset_name}: ${alert.summary}`,
        severity: alert.severity,
        state: 'open',
        opened_at: now,
        updated_at: now,
        resolved_at: null,
        resolved_by: null,
      };
      await insertIncident(trx, created);
      await write(trx, created.id);
      return { row: created, created: true };
    });
  }

  /** Refuses people's changes to a suppressed alert: it fires or resolves by itself when its window ends. */
  function refuseSuppressed(row: AlertRow): void {
    if (row.state === 'suppressed') {
      throw new HubError(
        'conflict',
        `alert ${row.id} is suppressed by maintenance window ${row.suppressed_by ?? ''}`,
      );
    }
  }

  async function presentIncidents(rows: IncidentRow[]): Promise<Incident[]> {
    const counts = await incidentAlertCounts(
      db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => presentIncident(r, counts.get(r.id)));
  }

  return {
    async list(principal, query, page) {
      const now = clock.now();
      const filter = {
        visible: visibleAssetIds(principal),
        now: now.toISOString(),
        ...(query.status !== undefined ? { status: query.status } : {}),
        ...(query.severity !== undefined ? { severity: query.severity } : {}),
        ...(query.asset !== undefined ? { asset: query.asset } : {}),
      };
      const { rows, total } = await listAlerts(db, filter, pageWindow(page));
      return toPage(
        rows.map((r) => presentAlert(r, now)),
        total,
        page,
      );
    },

    async acknowledge(ctx, id) {
      const row = await loadAlert(ctx.principal, id);
      if (row.state === 'resolved') throw new HubError('conflict', `alert ${id} is resolved`);
      refuseSuppressed(row);
      if (row.state === 'acknowledged') return presentAlert(row, clock.now());
      const now = clock.now();
      const changes = {
        state: 'acknowledged',
        acknowledged_at: now.toISOString(),
        acknowledged_by: actorOf(ctx.principal).actorId,
      };
      await db.transaction().execute(async (trx) => {
        await updateAlert(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'alert.acknowledged',
          targetType: 'alert',
          targetId: id,
          assetId: row.asset_id,
          detail: { rule_id: row.rule_id },
        });
      });
      const updated = { ...row, ...changes };
      publishAlert('alert.acknowledged', updated);
      return presentAlert(updated, now);
    },

    async silence(ctx, id, input) {
      const row = await loadAlert(ctx.principal, id);
      if (row.state === 'resolved') throw new HubError('conflict', `alert ${id} is resolved`);
      refuseSuppressed(row);
      const now = clock.now();
      const maxMs = alertLimits.silenceMinutes * 60_000;
      let untilMs: number;
      if (input.until !== undefined) {
        untilMs = Date.parse(input.until);
        if (Number.isNaN(untilMs)) throw validationError('until', 'must be an RFC 3339 date-time');
        if (untilMs <= now.getTime()) throw validationError('until', 'must be in the future');
        if (untilMs - now.getTime() > maxMs) {
          throw validationError('until', `must be at most ${alertLimits.silenceMinutes} minutes ahead`);
        }
      } else {
        untilMs = now.getTime() + (input.duration_minutes ?? 60) * 60_000;
      }
      const silencedUntil = new Date(untilMs).toISOString();
      await db.transaction().execute(async (trx) => {
        await updateAlert(trx, id, { silenced_until: silencedUntil });
        await audit.record(trx, ctx, {
          action: 'alert.silenced',
          targetType: 'alert',
          targetId: id,
          assetId: row.asset_id,
          detail: { until: silencedUntil },
        });
      });
      const updated = { ...row, silenced_until: silencedUntil };
      publishAlert('alert.silenced', updated);
      return presentAlert(updated, now);
    },

    async listIncidents(principal, query, page) {
      const filter = {
        visible: visibleAssetIds(principal),
        ...(query.status !== undefined ? { status: query.status } : {}),
        ...(query.severity !== undefined ? { severity: query.severity } : {}),
        ...(query.asset !== undefined ? { asset: query.asset } : {}),
      };
      const { rows, total } = await listIncidents(db, filter, pageWindow(page));
      return toPage(await presentIncidents(rows), total, page);
    },

    async resolveIncident(ctx, id) {
      const row = await findIncident(db, id);
      if (!row || !canSeeAsset(ctx.principal, row.asset_id)) {
        throw new HubError('not_found', `no incident ${id}`);
      }
      if (row.state === 'resolved') throw new HubError('conflict', `incident ${id} is already resolved`);
      const now = clock.now().toISOString();
      const changes = {
        state: 'resolved',
        resolved_at: now,
        resolved_by: actorOf(ctx.principal).actorId,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await updateIncident(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'incident.resolved',
          targetType: 'incident',
          targetId: id,
          assetId: row.asset_id,
          detail: {},
        });
      });
      const updated = { ...row, ...changes };
      publishIncident('incident.resolved', updated);
      const [presented] = await presentIncidents([updated]);
      if (!presented) throw new HubError('internal_error');
      return presented;
    },

    async incidentWithAlerts(principal, id, alertLimit) {
      const row = await findIncident(db, id);
      if (!row || !canSeeAsset(principal, row.asset_id)) throw new HubError('not_found', `no incident ${id}`);
      const [incident] = await presentIncidents([row]);
      if (!incident) throw new HubError('internal_error');
      const now = clock.now();
      const alerts = (await listIncidentAlerts(db, id, alertLimit)).map((a) => presentAlert(a, now));
      return { incident, alerts };
    },

    open: () => listOpenAlerts(db),

    async fire(rule, asset, found, suppressedBy = null) {
      const now = clock.now().toISOString();
      const alert: AlertRow = {
        id: newId('alert'),
        rule_id: rule.id,
        rule_name: rule.name,
        asset_id: asset.id,
        asset_name: asset.name,
        kind: rule.kind,
        severity: rule.severity,
        state: suppressedBy === null ? 'firing' : 'suppressed',
        summary: found.summary,
        value: found.value,
        incident_id: null,
        fired_at: now,
        acknowledged_at: null,
        acknowledged_by: null,
        silenced_until: null,
        resolved_at: null,
        suppressed_by: suppressedBy,
      };
      if (suppressedBy !== null) {
        await insertAlert(db, alert);
        return;
      }
      const incident = await withIncident(alert, (trx, incidentId) =>
        insertAlert(trx, { ...alert, incident_id: incidentId }),
      );
      publishAlert('alert.fired', { ...alert, incident_id: incident.row.id });
      publishIncident(incident.created ? 'incident.created' : 'incident.updated', incident.row);
    },

    async promote(alert, found) {
      const changes = {
        state: 'firing',
        fired_at: clock.now().toISOString(),
        summary: found.summary,
        value: found.value,
      };
      const fired = { ...alert, ...changes };
      const incident = await withIncident(fired, (trx, incidentId) =>
        updateAlert(trx, alert.id, { ...changes, incident_id: incidentId }),
      );
      publishAlert('alert.fired', { ...fired, incident_id: incident.row.id });
      publishIncident(incident.created ? 'incident.created' : 'incident.updated', incident.row);
    },

    resolve: (alert) => resolveRow(alert),

    async resolveWhere(match) {
      for (const alert of (await listOpenAlerts(db)).filter(match)) await resolveRow(alert);
    },
  };
}
