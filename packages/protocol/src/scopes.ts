/** Scopes of spec 2.3: the table's scopes plus the ones that appear only on endpoints. */
export const scopes = [
  'assets:read',
  'assets:write',
  'assets:exec',
  'assets:power',
  'files:read',
  'files:write',
  'services:read',
  'services:write',
  'processes:read',
  'processes:kill',
  'container:read',
  'container:write',
  'connectors:read',
  'connectors:write',
  'groups:read',
  'groups:write',
  'alerts:read',
  'alerts:write',
  'metrics:read',
  'homeauto:read',
  'homeauto:write',
  'agents:read',
  'agents:write',
  'webhooks:read',
  'webhooks:write',
  'schedules:read',
  'schedules:write',
  'checks:read',
  'checks:write',
  'actions:read',
  'actions:write',
  'actions:exec',
  'maintenance:read',
  'maintenance:write',
  /** Package updates (decision 0081): see what is available and past runs; start, schedule and cancel runs. */
  'updates:read',
  'updates:run',
  'hub:read',
  /** The hub's own Prometheus metrics (GET /metrics; decision 0034). */
  'hub:metrics',
  'network:read',
  'disks:read',
  'packages:read',
  'cron:read',
  'users:read',
  'logs:read',
  'search:read',
  'audit:read',
  'events:subscribe',
  'discovery:write',
  'topology:read',
  'bulk:write',
  /** Prometheus HTTP service discovery: the targets of the assets the key may see (decision 0074). */
  'prometheus:sd',
] as const;

export type Scope = (typeof scopes)[number];

/** Families are the part before the colon: `files` in `files:read`. */
export const scopeFamilies = [...new Set(scopes.map((s) => s.split(':')[0] as string))];

const scopePattern = /^(\*|[a-z]+(:(\*|[a-z]+))?)$/;

/**
 * A scope a key may hold: an exact scope, `family:*`, a bare `family`, or `*`. Unknown families and unknown
 * actions are refused so that a typo cannot silently grant nothing (or, worse, something later).
 */
export function isGrantableScope(value: string): boolean {
  if (!scopePattern.test(value)) return false;
  if (value === '*') return true;
  const [family, action] = value.split(':') as [string, string | undefined];
  if (!scopeFamilies.includes(family)) return false;
  if (action === undefined || action === '*') return true;
  return (scopes as readonly string[]).includes(value);
}

/** Whether one held scope covers the required one. */
export function scopeCovers(held: string, required: Scope): boolean {
  if (held === '*' || held === required) return true;
  const family = required.split(':')[0];
  return held === family || held === `${family}:*`;
}

export function scopesCover(held: readonly string[], required: Scope): boolean {
  return held.some((h) => scopeCovers(h, required));
}
