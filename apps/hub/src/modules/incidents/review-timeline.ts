/**
 * An incident's timeline, a pure function of what the hub stored (decision 0080): the incident's own opening
 * and resolution, each of its alerts firing, acknowledged and resolving, and the audit entries of its asset
 * in the review's window. The event bus keeps nothing, so the stored rows are the record. Ordered by time,
 * bounded, and saying so when cut.
 */
import type { Alert, AuditEvent, Incident, TimelineEntry, TimelineSource } from '@svc/protocol';

/** The window the audit entries come from: `margin` before the incident opened to `margin` after its end. */
export function reviewWindow(
  incident: Pick<Incident, 'opened_at' | 'resolved_at'>,
  now: Date,
  marginMinutes: number,
): { from: string; to: string } {
  const margin = marginMinutes * 60_000;
  const end = incident.resolved_at === null ? now.getTime() : Date.parse(incident.resolved_at);
  return {
    from: new Date(Date.parse(incident.opened_at) - margin).toISOString(),
    to: new Date(end + margin).toISOString(),
  };
}

const sourceOrder: Record<TimelineSource, number> = { incident: 0, alert: 1, audit: 2 };

/** Audit actions the alert and incident rows already tell (with their actor): not listed twice. */
const toldByRows = new Set(['alert.acknowledged', 'incident.resolved']);

function alertEntries(alert: Alert): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    {
      ts: alert.fired_at,
      source: 'alert',
      type: 'alert.fired',
      text: `${alert.rule_name} fired (${alert.severity}): ${alert.summary}`,
      actor: null,
      ref_id: alert.id,
    },
  ];
  if (alert.acknowledged_at !== null) {
    entries.push({
      ts: alert.acknowledged_at,
      source: 'alert',
      type: 'alert.acknowledged',
      text: `${alert.rule_name} acknowledged`,
      actor: alert.acknowledged_by,
      ref_id: alert.id,
    });
  }
  if (alert.resolved_at !== null) {
    entries.push({
      ts: alert.resolved_at,
      source: 'alert',
      type: 'alert.resolved',
      text: `${alert.rule_name} resolved`,
      actor: null,
      ref_id: alert.id,
    });
  }
  return entries;
}

function auditEntry(event: AuditEvent): TimelineEntry {
  const target = event.target_type === null ? '' : ` ${event.target_type} ${event.target_id ?? ''}`.trimEnd();
  return {
    ts: event.ts,
    source: 'audit',
    type: event.action,
    text: `${event.action}${target}`,
    actor: event.actor_id,
    ref_id: event.id,
  };
}

export interface AssembledTimeline {
  timeline: TimelineEntry[];
  total: number;
  note: string | null;
}

export function assembleTimeline(input: {
  incident: Incident;
  alerts: readonly Alert[];
  /** The incident's alerts in all (more than `alerts` when their read was bounded). */
  alertTotal: number;
  /** The asset's audit entries in the window, or null when the caller may not read the audit trail. */
  audit: { entries: readonly AuditEvent[]; total: number } | null;
  limit: number;
}): AssembledTimeline {
  const { incident, alerts, audit, limit } = input;
  const ownIds = new Set([incident.id, ...alerts.map((a) => a.id)]);
  const entries: TimelineEntry[] = [
    {
      ts: incident.opened_at,
      source: 'incident',
      type: 'incident.opened',
      text: `Incident opened: ${incident.title}`,
      actor: null,
      ref_id: incident.id,
    },
    ...alerts.flatMap(alertEntries),
    ...(audit?.entries ?? [])
      .filter((e) => !(toldByRows.has(e.action) && e.target_id !== null && ownIds.has(e.target_id)))
      .map(auditEntry),
  ];
  if (incident.resolved_at !== null) {
    entries.push({
      ts: incident.resolved_at,
      source: 'incident',
      type: 'incident.resolved',
      text: 'Incident resolved',
      actor: incident.resolved_by,
      ref_id: incident.id,
    });
  }
  entries.sort(
    (a, b) =>
      Date.parse(a.ts) - Date.parse(b.ts) ||
      sourceOrder[a.source] - sourceOrder[b.source] ||
      (a.ref_id ?? '').localeCompare(b.ref_id ?? ''),
  );
  const notes: string[] = [];
  const alertsLeftOut = input.alertTotal - alerts.length;
  const auditLeftOut = audit === null ? 0 : audit.total - audit.entries.length;
  if (alertsLeftOut > 0) notes.push(`${String(alertsLeftOut)} later alerts are not in it`);
  if (auditLeftOut > 0) notes.push(`${String(auditLeftOut)} earlier audit entries are not in it`);
  const total = entries.length + alertsLeftOut + auditLeftOut;
  if (entries.length > limit) notes.push(`cut at the first ${String(limit)} entries`);
  const sentences: string[] = [];
  if (notes.length > 0) {
    const held = Math.min(limit, entries.length);
    sentences.push(`The timeline holds ${String(held)} of ${String(total)} entries: ${notes.join('; ')}.`);
  }
  if (audit === null) sentences.push('Audit entries are left out: reading them needs the audit:read scope.');
  return {
    timeline: entries.slice(0, limit),
    total,
    note: sentences.length === 0 ? null : sentences.join(' '),
  };
}
