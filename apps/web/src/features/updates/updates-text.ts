/**
 * How the Updates pages read: ages ("12 days ago", in the reader's language through Intl), a run's counts, a
 * planned change, and the fleet filters kept in the address. Pure, so unit-tested.
 */
import type { PlannedChange, UpdateRun, UpdateRunCounts, UpdatesFleetQuery } from '@svc/protocol';
import { activeLocale } from '../../i18n/active-locale';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/** How long ago `iso` was, roughly, in the largest whole unit up to days ("12 days ago", "vor 5 Stunden"). */
export function agoText(iso: string, now: number = Date.now()): string {
  const ms = now - Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  const format = new Intl.RelativeTimeFormat(activeLocale(), { numeric: 'always' });
  if (ms < minute) return format.format(-Math.max(0, Math.floor(ms / 1000)), 'second');
  if (ms < hour) return format.format(-Math.floor(ms / minute), 'minute');
  if (ms < day) return format.format(-Math.floor(ms / hour), 'hour');
  return format.format(-Math.floor(ms / day), 'day');
}

/** Scheduled or running: the run may still change, and can be cancelled. */
export function isActive(run: Pick<UpdateRun, 'status'>): boolean {
  return run.status === 'scheduled' || run.status === 'running';
}

/** The non-zero states of a run's targets, in the order a reader cares for ("2 ok, 1 failed of 3"). */
export function countParts(
  counts: UpdateRunCounts,
): { status: Exclude<keyof UpdateRunCounts, 'total'>; n: number }[] {
  return (['ok', 'failed', 'offline', 'running', 'pending', 'skipped', 'cancelled'] as const)
    .filter((status) => counts[status] > 0)
    .map((status) => ({ status, n: counts[status] }));
}

/** The versions of a change: "1.0 → 1.1", one of them, or nothing. */
export function versionsText(change: PlannedChange): string {
  const { from_version: from, to_version: to } = change;
  if (from && to) return `${from} → ${to}`;
  return to ?? from ?? '';
}

/** The fleet view's filters as the address keeps them (`?needs=1&security=1&group=grp_…`). */
export interface FleetFilters {
  needsUpdates: boolean;
  securityOnly: boolean;
  group: string;
}

export function fleetFiltersOf(params: URLSearchParams): FleetFilters {
  return {
    needsUpdates: params.get('needs') === '1',
    securityOnly: params.get('security') === '1',
    group: params.get('group') ?? '',
  };
}

export function fleetParams(filters: FleetFilters): URLSearchParams {
  const out = new URLSearchParams();
  if (filters.needsUpdates) out.set('needs', '1');
  if (filters.securityOnly) out.set('security', '1');
  if (filters.group) out.set('group', filters.group);
  return out;
}

export function fleetQuery(filters: FleetFilters): UpdatesFleetQuery {
  return {
    ...(filters.needsUpdates ? { needs_updates: true } : {}),
    ...(filters.securityOnly ? { security: true } : {}),
    ...(filters.group ? { group: filters.group } : {}),
  };
}
