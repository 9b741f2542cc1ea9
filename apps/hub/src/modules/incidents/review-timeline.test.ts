/** An incident's timeline assembled from stored rows: order, duplicates left out, bounds and the note. */
import { describe, expect, it } from 'vitest';
import type { Alert, AuditEvent, Incident } from '@svc/protocol';
import { assembleTimeline, reviewWindow } from './review-timeline.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 10, minute)).toISOString();

const incident: Incident = {
  id: 'inc_1',
  asset_id: 'ast_1',
  title: 'db-1: cpu high',
  severity: 'critical',
  status: 'resolved',
  alert_count: 1,
  active_alerts: 0,
  opened_at: at(0),
  updated_at: at(30),
  resolved_at: at(30),
  resolved_by: 'usr_1',
};

const alert: Alert = {
  id: 'alr_1',
  rule_id: 'arl_1',
  rule_name: 'hot cpu',
  asset_id: 'ast_1',
  asset_name: 'db-1',
  kind: 'cpu',
  severity: 'critical',
  status: 'resolved',
  summary: 'cpu 97%',
  value: 97,
  incident_id: 'inc_1',
  fired_at: at(0),
  acknowledged_at: at(5),
  acknowledged_by: 'usr_2',
  silenced_until: null,
  resolved_at: at(20),
  suppressed_by: null,
};

const audit = (id: string, minute: number, action: string, targetId: string | null = null): AuditEvent => ({
  id,
  ts: at(minute),
  actor_type: 'session',
  actor_id: 'usr_2',
  action,
  target_type: targetId === null ? null : 'alert',
  target_id: targetId,
  asset_id: 'ast_1',
  ip: null,
  request_id: null,
  detail: {},
});

describe('assembleTimeline', () => {
  it('orders incident, alert and audit entries by time and leaves out audit entries the rows already tell', () => {
    const t = assembleTimeline({
      incident,
      alerts: [alert],
      alertTotal: 1,
      audit: {
        entries: [
          audit('evt_3', 25, 'incident.resolved', 'inc_1'),
          audit('evt_2', 10, 'service.restarted'),
          audit('evt_1', 5, 'alert.acknowledged', 'alr_1'),
        ],
        total: 3,
      },
      limit: 100,
    });
    expect(t.timeline.map((e) => [e.ts, e.type, e.actor])).toEqual([
      [at(0), 'incident.opened', null],
      [at(0), 'alert.fired', null],
      [at(5), 'alert.acknowledged', 'usr_2'],
      [at(10), 'service.restarted', 'usr_2'],
      [at(20), 'alert.resolved', null],
      [at(30), 'incident.resolved', 'usr_1'],
    ]);
    expect(t).toMatchObject({ total: 6, note: null });
  });

  it('cuts at the limit and says how much is left out, and why audit entries are missing', () => {
    const entries = Array.from({ length: 8 }, (_, i) => audit(`evt_${String(i)}`, 1 + i, 'exec.run'));
    const t = assembleTimeline({
      incident,
      alerts: [alert],
      alertTotal: 3,
      audit: { entries, total: 20 },
      limit: 5,
    });
    expect(t.timeline).toHaveLength(5);
    expect(t.total).toBe(13 + 2 + 12);
    expect(t.note).toContain('2 later alerts are not in it');
    expect(t.note).toContain('12 earlier audit entries are not in it');
    expect(t.note).toContain('cut at the first 5 entries');
    const none = assembleTimeline({ incident, alerts: [], alertTotal: 0, audit: null, limit: 5 });
    expect(none.note).toBe('Audit entries are left out: reading them needs the audit:read scope.');
  });

  it('reads the window from the incident: the margin before it opened to the margin after its end, or now', () => {
    expect(reviewWindow(incident, new Date(at(59)), 15)).toEqual({
      from: new Date(Date.parse(at(0)) - 15 * 60_000).toISOString(),
      to: at(45),
    });
    expect(reviewWindow({ ...incident, resolved_at: null }, new Date(at(40)), 15).to).toBe(at(55));
  });
});
