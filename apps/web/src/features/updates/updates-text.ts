/**
 * How the Updates pages read: ages ("12 days ago"), a run's counts, a planned change, and the fleet filters
 * kept in the address. Pure, so unit-tested.
 */
import type { PlannedChange, UpdateRun, UpdateRunCounts, UpdatesFleetQuery } from '@svc/protocol';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/** How long ago `iso` was, roughly; `never` when absent. */
export function agoText(iso: string | null, now: number = Date.now()): string {
  if (!iso) return 'never';
  const ms = now - Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  if (ms < minute) return 'just now';
  if (ms < hour) return `${String(Math.floor(ms / minute))} min ago`;
  if (ms < day) return `${String(Math.floor(ms / hour))} h ago`;
  const days = Math.floor(ms / day);
  return `${String(days)} day${days === 1 ? '' : 's'} ago`;
}

/** Scheduled or running: the run may still change, and can be cancelled. */
export function isActive(run: Pick<UpdateRun, 'status'>): boolean {
  return run.status === 'scheduled' || run.status === 'running';
}

export const modeText = { dry_run: 'Dry run', apply: 'Apply' } as const;
export const selectionText = {
  all: 'all updates',
  security: 'security only',
  named: 'named packages',
} as const;

/** "2 ok, 1 failed of 3" (only the non-zero states, in the order a reader cares for). */
export function countsText(counts: UpdateRunCounts): string {
  const parts = (['ok', 'failed', 'offline', 'running', 'pending', 'skipped', 'cancelled'] as const)
    .filter((k) => counts[k] > 0)
    .map((k) => `${String(counts[k])} ${k}`);
  return parts.length === 0
    ? `${String(counts.total)} targets`
    : `${parts.join(', ')} of ${String(counts.total)}`;
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
