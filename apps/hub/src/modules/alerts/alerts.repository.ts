import { sql, type ExpressionBuilder } from 'kysely';
import type { AlertStatus, AlertSeverity, IncidentStatus } from '@svc/protocol';
import type {
  AlertRulesTable,
  AlertsTable,
  Database,
  Executor,
  IncidentsTable,
} from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type AlertRuleRow = AlertRulesTable;
export type AlertRow = AlertsTable;
export type IncidentRow = IncidentsTable;

// ---- rules ----

export async function listRules(db: Executor, limit: number): Promise<AlertRuleRow[]> {
  return db.selectFrom('alert_rules').selectAll().orderBy('created_at').orderBy('id').limit(limit).execute();
}

export async function countRules(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('alert_rules')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function findRule(db: Executor, id: string): Promise<AlertRuleRow | undefined> {
  return db.selectFrom('alert_rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertRule(db: Executor, row: AlertRuleRow): Promise<void> {
  await db.insertInto('alert_rules').values(row).execute();
}

export async function updateRule(
  db: Executor,
  id: string,
  changes: Partial<Omit<AlertRuleRow, 'id'>>,
): Promise<void> {
  await db.updateTable('alert_rules').set(changes).where('id', '=', id).execute();
}

export async function deleteRule(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('alert_rules').where('id', '=', id).execute();
}

// ---- alerts ----

export interface AlertFilter {
  /** Only alerts of these assets; null: every asset. */
  visible: readonly string[] | null;
  status?: AlertStatus | 'active';
  severity?: AlertSeverity;
  asset?: string;
  /** The time "silenced" is judged at. */
  now: string;
}

function notSilenced(now: string) {
  return (eb: ExpressionBuilder<Database, 'alerts'>) =>
    eb.or([eb('silenced_until', 'is', null), eb('silenced_until', '<=', now)]);
}

function filteredAlerts(db: Executor, filter: AlertFilter) {
  let query = db.selectFrom('alerts');
  if (filter.visible !== null) {
    if (filter.visible.length === 0) return query.where(sql<boolean>`1 = 0`);
    query = query.where('asset_id', 'in', filter.visible);
  }
  if (filter.asset !== undefined) query = query.where('asset_id', '=', filter.asset);
  if (filter.severity !== undefined) query = query.where('severity', '=', filter.severity);
  switch (filter.status) {
    case 'active':
      query = query.where('state', '!=', 'resolved');
      break;
    case 'resolved':
      query = query.where('state', '=', 'resolved');
      break;
    case 'silenced':
      query = query.where('state', '!=', 'resolved').where('silenced_until', '>', filter.now);
      break;
    case 'suppressed':
      query = query.where('state', '=', 'suppressed');
      break;
    case 'firing':
    case 'acknowledged':
      query = query.where('state', '=', filter.status).where(notSilenced(filter.now));
      break;
    case undefined:
      break;
  }
  return query;
}

export async function listAlerts(
  db: Executor,
  filter: AlertFilter,
  window: Window,
): Promise<{ rows: AlertRow[]; total: number }> {
  return listPage(
    filteredAlerts(db, filter).selectAll().orderBy('fired_at', 'desc').orderBy('id', 'desc'),
    window,
  );
}

export async function findAlert(db: Executor, id: string): Promise<AlertRow | undefined> {
  return db.selectFrom('alerts').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertAlert(db: Executor, row: AlertRow): Promise<void> {
  await db.insertInto('alerts').values(row).execute();
}

export async function updateAlert(
  db: Executor,
  id: string,
  changes: Partial<Omit<AlertRow, 'id'>>,
): Promise<void> {
  await db.updateTable('alerts').set(changes).where('id', '=', id).execute();
}

/** The alerts an incident holds, oldest first, at most `limit`. */
export async function listIncidentAlerts(
  db: Executor,
  incidentId: string,
  limit: number,
): Promise<AlertRow[]> {
  return db
    .selectFrom('alerts')
    .selectAll()
    .where('incident_id', '=', incidentId)
    .orderBy('fired_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Alerts not resolved yet (of these rules, or every rule), oldest first. */
export async function listOpenAlerts(db: Executor, ruleIds?: readonly string[]): Promise<AlertRow[]> {
  let query = db.selectFrom('alerts').selectAll().where('state', '!=', 'resolved');
  if (ruleIds !== undefined) {
    if (ruleIds.length === 0) return [];
    query = query.where('rule_id', 'in', ruleIds);
  }
  return query.orderBy('fired_at').execute();
}

// ---- incidents ----

export interface IncidentFilter {
  visible: readonly string[] | null;
  status?: IncidentStatus;
  severity?: AlertSeverity;
  asset?: string;
}

function filteredIncidents(db: Executor, filter: IncidentFilter) {
  let query = db.selectFrom('incidents');
  if (filter.visible !== null) {
    if (filter.visible.length === 0) return query.where(sql<boolean>`1 = 0`);
    query = query.where('asset_id', 'in', filter.visible);
  }
  if (filter.asset !== undefined) query = query.where('asset_id', '=', filter.asset);
  if (filter.severity !== undefined) query = query.where('severity', '=', filter.severity);
  if (filter.status !== undefined) query = query.where('state', '=', filter.status);
  return query;
}

export async function listIncidents(
  db: Executor,
  filter: IncidentFilter,
  window: Window,
): Promise<{ rows: IncidentRow[]; total: number }> {
  return listPage(
    filteredIncidents(db, filter).selectAll().orderBy('opened_at', 'desc').orderBy('id', 'desc'),
    window,
  );
}

export async function findIncident(db: Executor, id: string): Promise<IncidentRow | undefined> {
  return db.selectFrom('incidents').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findOpenIncident(db: Executor, assetId: string): Promise<IncidentRow | undefined> {
  return db
    .selectFrom('incidents')
    .selectAll()
    .where('asset_id', '=', assetId)
    .where('state', '=', 'open')
    .orderBy('opened_at', 'desc')
    .executeTakeFirst();
}

export async function insertIncident(db: Executor, row: IncidentRow): Promise<void> {
  await db.insertInto('incidents').values(row).execute();
}

export async function updateIncident(
  db: Executor,
  id: string,
  changes: Partial<Omit<IncidentRow, 'id'>>,
): Promise<void> {
  await db.updateTable('incidents').set(changes).where('id', '=', id).execute();
}

/** How many alerts each incident holds, and how many of them are not resolved. */
export async function incidentAlertCounts(
  db: Executor,
  incidentIds: readonly string[],
): Promise<Map<string, { total: number; active: number }>> {
  const counts = new Map<string, { total: number; active: number }>();
  if (incidentIds.length === 0) return counts;
  const rows = await db
    .selectFrom('alerts')
    .select((eb) => [
      'incident_id',
      eb.fn.countAll<number | string>().as('total'),
      eb.fn
        .sum<number | string | null>(eb.case().when('state', '!=', 'resolved').then(1).else(0).end())
        .as('active'),
    ])
    .where('incident_id', 'in', incidentIds)
    .groupBy('incident_id')
    .execute();
  for (const row of rows) {
    if (row.incident_id !== null) {
      counts.set(row.incident_id, { total: Number(row.total), active: Number(row.active ?? 0) });
    }
  }
  return counts;
}
