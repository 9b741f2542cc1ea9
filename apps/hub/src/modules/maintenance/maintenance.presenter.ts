import { maintenanceLimits, type MaintenanceKind, type MaintenanceWindow } from '@svc/protocol';
import { canSeeAsset, type Principal } from '../../access/principal.js';
import { readStringList } from '../../platform/db/paging.js';
import type { MaintenanceWindowRow } from './maintenance.repository.js';
import { currentOccurrence, nextOccurrences, type Occurrence, type WindowTiming } from './window-time.js';

export function timingOf(row: MaintenanceWindowRow): WindowTiming {
  return {
    kind: row.kind as MaintenanceKind,
    startsAt: row.starts_at,
    endsAt: row.ends_at,
    cron: row.cron,
    durationMinutes: row.duration_minutes,
    timezone: row.timezone,
  };
}

const presentOccurrence = (o: Occurrence) => ({
  starts_at: o.start.toISOString(),
  ends_at: o.end.toISOString(),
});

/** A window as a principal sees it: assets outside its allowed ones are not listed. */
export function presentWindow(row: MaintenanceWindowRow, principal: Principal, now: Date): MaintenanceWindow {
  const timing = timingOf(row);
  const current = currentOccurrence(timing, now);
  return {
    id: row.id,
    name: row.name,
    reason: row.reason,
    kind: timing.kind,
    asset_ids: readStringList(row.asset_ids).filter((id) => canSeeAsset(principal, id)),
    group_ids: readStringList(row.group_ids),
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    cron: row.cron,
    duration_minutes: row.duration_minutes,
    timezone: row.timezone,
    current: current ? presentOccurrence(current) : null,
    next_occurrences: nextOccurrences(timing, now, maintenanceLimits.nextOccurrences).map(presentOccurrence),
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
