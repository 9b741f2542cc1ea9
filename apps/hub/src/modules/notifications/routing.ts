/**
 * Whether an alert goes out on a channel now: pure, so the rules are table-tested. A channel takes the alert
 * event types it lists, at or above its lowest severity (and the hub-wide one); in its quiet hours only
 * critical alerts go out, the rest are suppressed and counted.
 */
import type { NotificationSeverity, QuietHours } from '@svc/protocol';

const rank: Record<NotificationSeverity, number> = { info: 0, warning: 1, critical: 2 };

export function isNotificationSeverity(value: unknown): value is NotificationSeverity {
  return typeof value === 'string' && Object.hasOwn(rank, value);
}

export interface ChannelRouting {
  events: readonly string[];
  minSeverity: NotificationSeverity;
  quietHours: QuietHours | null;
}

export type RoutingDecision = 'send' | 'not_routed' | 'below_severity' | 'quiet_hours';

/** Minutes since midnight at `at` in `timeZone`. */
function minutesOfDay(at: Date, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return hour * 60 + minute;
}

function toMinutes(clock: string): number {
  const [hours, minutes] = clock.split(':').map(Number);
  return (hours ?? 0) * 60 + (minutes ?? 0);
}

/** Inside the window: from `start` (inclusive) to `end` (exclusive), crossing midnight when end < start. */
export function inQuietHours(quiet: QuietHours, at: Date): boolean {
  const now = minutesOfDay(at, quiet.time_zone ?? 'UTC');
  const start = toMinutes(quiet.start);
  const end = toMinutes(quiet.end);
  if (start === end) return false;
  return start < end ? now >= start && now < end : now >= start || now < end;
}

/** True when the runtime knows the IANA zone name. */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-GB', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export function routeAlert(
  channel: ChannelRouting,
  alert: { type: string; severity: NotificationSeverity },
  hubMinimum: NotificationSeverity,
  at: Date,
): RoutingDecision {
  if (!channel.events.includes(alert.type)) return 'not_routed';
  const floor = Math.max(rank[channel.minSeverity], rank[hubMinimum]);
  if (rank[alert.severity] < floor) return 'below_severity';
  if (channel.quietHours && alert.severity !== 'critical' && inQuietHours(channel.quietHours, at)) {
    return 'quiet_hours';
  }
  return 'send';
}
