import type { Alert, AlertRule, AlertRuleKind, AlertSeverity, AlertStatus, Incident } from '@svc/protocol';
import { readStringList } from '../../platform/db/paging.js';
import type { AlertRow, AlertRuleRow, IncidentRow } from './alerts.repository.js';

export const severityRank: Record<AlertSeverity, number> = { info: 0, warning: 1, critical: 2 };

export function presentRule(row: AlertRuleRow): AlertRule {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as AlertRuleKind,
    severity: row.severity as AlertSeverity,
    threshold_percent: row.threshold_percent,
    service: row.service,
    duration_minutes: row.duration_minutes,
    failures: row.failures ?? null,
    asset_ids: ruleAssets(row),
    enabled: row.enabled === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function ruleAssets(row: Pick<AlertRuleRow, 'asset_ids'>): string[] {
  return readStringList(row.asset_ids);
}

/** The status a caller sees: silenced while `silenced_until` is ahead, otherwise the stored state. */
function alertStatus(row: AlertRow, now: Date): AlertStatus {
  if (row.state === 'resolved') return 'resolved';
  if (row.state === 'suppressed') return 'suppressed';
  if (row.silenced_until !== null && Date.parse(row.silenced_until) > now.getTime()) return 'silenced';
  return row.state === 'acknowledged' ? 'acknowledged' : 'firing';
}

export function presentAlert(row: AlertRow, now: Date): Alert {
  return {
    id: row.id,
    rule_id: row.rule_id,
    rule_name: row.rule_name,
    asset_id: row.asset_id,
    asset_name: row.asset_name,
    kind: row.kind as AlertRuleKind,
    severity: row.severity as AlertSeverity,
    status: alertStatus(row, now),
    summary: row.summary,
    value: row.value,
    incident_id: row.incident_id,
    fired_at: row.fired_at,
    acknowledged_at: row.acknowledged_at,
    acknowledged_by: row.acknowledged_by,
    silenced_until: row.silenced_until,
    resolved_at: row.resolved_at,
    suppressed_by: row.suppressed_by,
  };
}

export function presentIncident(
  row: IncidentRow,
  counts: { total: number; active: number } | undefined,
): Incident {
  return {
    id: row.id,
    asset_id: row.asset_id,
    title: row.title,
    severity: row.severity as AlertSeverity,
    status: row.state === 'resolved' ? 'resolved' : 'open',
    alert_count: counts?.total ?? 0,
    active_alerts: counts?.active ?? 0,
    opened_at: row.opened_at,
    updated_at: row.updated_at,
    resolved_at: row.resolved_at,
    resolved_by: row.resolved_by,
  };
}
