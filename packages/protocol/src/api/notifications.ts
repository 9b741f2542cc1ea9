/**
 * Notification channels: where alert events go (the Notifications settings domain). Each channel carries its
 * own routing: the lowest severity it takes, quiet hours and a digest window that coalesces bursts.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { eventTypes, type EventType } from '../events.js';
import { notificationSeverities } from '../settings.js';
import { IdParams, Maybe, Name, NullableTimestamp, Timestamp } from './shared.js';

export const notificationChannelKinds = ['webhook', 'email', 'ntfy', 'slack', 'discord'] as const;
export type NotificationChannelKind = (typeof notificationChannelKinds)[number];
export type NotificationSeverity = (typeof notificationSeverities)[number];

/** The alert events a channel may take. */
export const notifiableEventTypes = eventTypes.filter((t): t is Extract<EventType, `alert.${string}`> =>
  t.startsWith('alert.'),
);

export const notificationLimits = {
  recipients: 20,
  /** Longest digest window: one hour. */
  digestWindowS: 3600,
  /** Alerts one digest lists; later ones in the same window are counted, not listed. */
  digestItems: 50,
} as const;

const Url = Type.String({ minLength: 1, maxLength: 2048 });
const Email = Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@<>]+@[^\\s@<>]+$' });
const ClockTime = Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' });
const Severity = Type.Enum<[...typeof notificationSeverities]>(notificationSeverities);

export const QuietHours = Type.Object(
  {
    /** `HH:MM` in `time_zone`; a window may cross midnight (22:00 to 07:00). */
    start: ClockTime,
    end: ClockTime,
    /** IANA name; UTC when absent. */
    time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);
export type QuietHours = Static<typeof QuietHours>;

const smtpSecurity = ['tls', 'starttls', 'none'] as const;

/** Settings of a channel, by kind: `url` for the HTTP kinds, SMTP for email. The password is write-only. */
export const NotificationChannelSettings = Type.Object(
  {
    url: Type.Optional(Url),
    smtp_host: Type.Optional(Type.String({ minLength: 1, maxLength: 253 })),
    smtp_port: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
    smtp_security: Type.Optional(Type.Enum<[...typeof smtpSecurity]>(smtpSecurity)),
    smtp_username: Type.Optional(Type.String({ maxLength: 256 })),
    smtp_password: Type.Optional(Type.String({ maxLength: 256 })),
    from: Type.Optional(Email),
    to: Type.Optional(Type.Array(Email, { minItems: 1, maxItems: notificationLimits.recipients })),
  },
  { additionalProperties: false },
);
export type NotificationChannelSettings = Static<typeof NotificationChannelSettings>;

export const NotificationChannelStats = Type.Object({
  sent: Type.Integer(),
  failed: Type.Integer(),
  /** Alerts not sent: below the channel's severity or in its quiet hours. */
  suppressed: Type.Integer(),
  last_sent_at: NullableTimestamp,
  last_error: Maybe(Type.String()),
});

/** A channel as reads show it: the SMTP password only as `smtp_password_set`. */
export const NotificationChannel = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: Type.Enum<[...typeof notificationChannelKinds]>(notificationChannelKinds),
  enabled: Type.Boolean(),
  settings: Type.Object({
    url: Maybe(Type.String()),
    smtp_host: Maybe(Type.String()),
    smtp_port: Maybe(Type.Integer()),
    smtp_security: Maybe(Type.String()),
    smtp_username: Maybe(Type.String()),
    smtp_password_set: Type.Boolean(),
    from: Maybe(Type.String()),
    to: Type.Array(Type.String()),
  }),
  events: Type.Array(Type.String()),
  min_severity: Severity,
  quiet_hours: Maybe(QuietHours),
  digest_window_s: Type.Integer(),
  stats: NotificationChannelStats,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type NotificationChannel = Static<typeof NotificationChannel>;

const Events = Type.Array(Type.Enum<[...typeof notifiableEventTypes]>(notifiableEventTypes), {
  minItems: 1,
  maxItems: notifiableEventTypes.length,
  uniqueItems: true,
});
function DigestWindowSchema() {
  return Type.Integer({ minimum: 0, maximum: notificationLimits.digestWindowS });
}
const DigestWindow = DigestWindowSchema();

export const NotificationChannelCreate = Type.Object(
  {
    name: Name,
    kind: Type.Enum<[...typeof notificationChannelKinds]>(notificationChannelKinds),
    enabled: Type.Optional(Type.Boolean()),
    settings: NotificationChannelSettings,
    /** `alert.fired` and `alert.resolved` when absent. */
    events: Type.Optional(Events),
    /** `warning` when absent; the hub-wide `notifications.min_severity` applies too. */
    min_severity: Type.Optional(Severity),
    quiet_hours: Type.Optional(Maybe(QuietHours)),
    /** Seconds an alert waits for others to go out with it in one message; 0 sends each at once. */
    digest_window_s: Type.Optional(DigestWindow),
  },
  { additionalProperties: false },
);
export type NotificationChannelCreate = Static<typeof NotificationChannelCreate>;

export const NotificationChannelUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    enabled: Type.Optional(Type.Boolean()),
    /** Replaces the settings; an absent `smtp_password` keeps the stored one. */
    settings: Type.Optional(NotificationChannelSettings),
    events: Type.Optional(Events),
    min_severity: Type.Optional(Severity),
    quiet_hours: Type.Optional(Maybe(QuietHours)),
    digest_window_s: Type.Optional(DigestWindow),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type NotificationChannelUpdate = Static<typeof NotificationChannelUpdate>;

export const NotificationTestResult = Type.Object({
  sent: Type.Boolean(),
  error: Maybe(Type.String()),
});
export type NotificationTestResult = Static<typeof NotificationTestResult>;

/**
 * A device's Web Push subscription (the mobile app, issue 17; decision 0032): where the browser's push service
 * takes messages for it, and the routing the device chose (its minimum severity, quiet hours, digest window).
 * Alerts reach it through the same routing as channels.
 */
export const pushLimits = {
  subscriptionsPerUser: 20,
  endpointLength: 2048,
} as const;

const Base64Url = (min: number, max: number) =>
  Type.String({ minLength: min, maxLength: max, pattern: '^[A-Za-z0-9_-]+={0,2}$' });

export const PushSubscriptionCreate = Type.Object(
  {
    device_id: Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$' }),
    /** The push service's URL for this browser: https (loopback http only with the insecure opt-in). */
    endpoint: Type.String({ minLength: 1, maxLength: pushLimits.endpointLength }),
    keys: Type.Object(
      { p256dh: Base64Url(80, 100), auth: Base64Url(16, 32) },
      { additionalProperties: false },
    ),
    min_severity: Type.Optional(Severity),
    quiet_hours: Type.Optional(Maybe(QuietHours)),
    digest_window_s: Type.Optional(DigestWindowSchema()),
  },
  { additionalProperties: false },
);
export type PushSubscriptionCreate = Static<typeof PushSubscriptionCreate>;

export const PushSubscription = Type.Object({
  id: Type.String(),
  device_id: Type.String(),
  /** The push service's origin only: the full endpoint is a capability and is not shown back. */
  endpoint_origin: Type.String(),
  min_severity: Severity,
  quiet_hours: Maybe(QuietHours),
  digest_window_s: Type.Integer(),
  sent: Type.Integer(),
  failed: Type.Integer(),
  last_error: Maybe(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type PushSubscription = Static<typeof PushSubscription>;

export const PushKey = Type.Object({
  /** The hub's VAPID public key (RFC 8292), uncompressed P-256 point, base64url: `applicationServerKey`. */
  public_key: Type.String(),
});
export type PushKey = Static<typeof PushKey>;

const channelPath = '/settings/notifications/channels';
const pushPath = '/notifications/push';

export const notificationsContracts = {
  'notifications.list': defineRoute({
    name: 'notifications.list',
    surface: 'console',
    method: 'GET',
    path: channelPath,
    auth: 'admin',
    summary: 'List notification channels with their routing',
    query: PaginationQuery,
    response: NotificationChannel,
    list: true,
  }),
  'notifications.create': defineRoute({
    name: 'notifications.create',
    surface: 'console',
    method: 'POST',
    path: channelPath,
    auth: 'admin',
    summary: 'Add a notification channel (webhook, email, ntfy, Slack, Discord)',
    body: NotificationChannelCreate,
    response: NotificationChannel,
    successStatus: 201,
  }),
  'notifications.get': defineRoute({
    name: 'notifications.get',
    surface: 'console',
    method: 'GET',
    path: `${channelPath}/{id}`,
    auth: 'admin',
    summary: 'Get a notification channel',
    params: IdParams,
    response: NotificationChannel,
  }),
  'notifications.update': defineRoute({
    name: 'notifications.update',
    surface: 'console',
    method: 'PATCH',
    path: `${channelPath}/{id}`,
    auth: 'admin',
    summary: 'Change a notification channel or its routing',
    params: IdParams,
    body: NotificationChannelUpdate,
    response: NotificationChannel,
  }),
  'notifications.delete': defineRoute({
    name: 'notifications.delete',
    surface: 'console',
    method: 'DELETE',
    path: `${channelPath}/{id}`,
    auth: 'admin',
    summary: 'Remove a notification channel',
    params: IdParams,
    response: NotificationChannel,
  }),
  'notifications.test': defineRoute({
    name: 'notifications.test',
    surface: 'console',
    method: 'POST',
    path: `${channelPath}/{id}/test`,
    auth: 'admin',
    summary: 'Send a test notification through a channel now (no routing applies)',
    params: IdParams,
    response: NotificationTestResult,
  }),
  'notifications.pushKey': defineRoute({
    name: 'notifications.pushKey',
    surface: 'console',
    method: 'GET',
    path: `${pushPath}/key`,
    auth: 'authenticated',
    sessionOnly: true,
    summary: "The hub's VAPID public key, for a device subscribing to push alerts",
    response: PushKey,
  }),
  'notifications.pushList': defineRoute({
    name: 'notifications.pushList',
    surface: 'console',
    method: 'GET',
    path: `${pushPath}/subscriptions`,
    auth: 'authenticated',
    sessionOnly: true,
    summary: `The signed-in user's push subscriptions, one per device (at most ${String(pushLimits.subscriptionsPerUser)})`,
    response: Type.Array(PushSubscription, { maxItems: pushLimits.subscriptionsPerUser }),
  }),
  'notifications.pushSubscribe': defineRoute({
    name: 'notifications.pushSubscribe',
    surface: 'console',
    method: 'POST',
    path: `${pushPath}/subscriptions`,
    auth: 'authenticated',
    sessionOnly: true,
    selfService: true,
    summary: "Subscribe this device to push alerts with its routing (replaces the device's earlier one)",
    body: PushSubscriptionCreate,
    response: PushSubscription,
    successStatus: 201,
  }),
  'notifications.pushUnsubscribe': defineRoute({
    name: 'notifications.pushUnsubscribe',
    surface: 'console',
    method: 'DELETE',
    path: `${pushPath}/subscriptions/{id}`,
    auth: 'authenticated',
    sessionOnly: true,
    selfService: true,
    summary: "Remove one of the signed-in user's push subscriptions",
    params: IdParams,
    response: PushSubscription,
  }),
} satisfies Record<string, RouteContract>;
