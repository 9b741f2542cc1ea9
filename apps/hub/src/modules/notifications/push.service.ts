/**
 * Push alerts to the mobile app's devices (decision 0032): the hub's VAPID keys (made once, the private one
 * sealed), one subscription per device with the routing the device chose, and delivery through the same
 * routing as channels (routing.ts: the event, the severity floor, quiet hours holding back all but critical)
 * with a digest window per subscription. Incidents go out at once, so the app can keep a persistent
 * notification per open critical incident (its "live activity") and close it when the incident resolves.
 * A subscription the push service calls gone (404/410) is deleted. A disabled user's devices get nothing
 * (decision 0087, addendum): their subscriptions are kept and read again at each send, so once the user is
 * enabled they receive again; a digest pending for them when its window ends is dropped, not kept.
 */
import {
  newId,
  pushLimits,
  type NotificationSeverity,
  type PushKey,
  type PushSubscription,
  type PushSubscriptionCreate,
  type QuietHours,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext, Principal } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import { readSetting, writeSetting } from '../../platform/db/key-values.js';
import type { Database } from '../../platform/db/schema.js';
import type { HubEvent } from '../../platform/event-bus.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import { findOutboundRefused } from '../../platform/outbound/outbound-refused.js';
import { vetOutboundUrl } from '../../platform/outbound/outbound-url.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  allPushSubscriptions,
  countPushFailed,
  countPushSent,
  deletePushSubscription,
  deletePushSubscriptionsOf,
  findPushSubscription,
  pushSubscriptionsOf,
  replacePushSubscription,
  type PushSubscriptionRow,
} from './push.repository.js';
import type { UserDataHolder } from '../users/users.service.js';
import { createDelivery } from './delivery.js';
import { createDigestStore } from './digest-store.js';
import { isNotificationSeverity, isTimeZone, routeAlert } from './routing.js';
import { generateVapidKeys, sendWebPush, type VapidKeys } from './web-push-sender.js';

/** A deleted user's subscriptions go with them, and their pending digests (decision 0087). */
export interface PushService extends UserDataHolder {
  publicKey(): Promise<PushKey>;
  list(principal: Principal): Promise<PushSubscription[]>;
  subscribe(ctx: ActionContext, input: PushSubscriptionCreate): Promise<PushSubscription>;
  unsubscribe(ctx: ActionContext, id: string): Promise<PushSubscription>;
  onEvent(event: HubEvent): void;
  close(): Promise<void>;
}

/** What the app's service worker receives (JSON, encrypted): an alert digest or an incident's state. */
export interface PushMessage {
  kind: 'alerts' | 'incident';
  title: string;
  severity: NotificationSeverity;
  alerts?: {
    alert_id: string;
    asset_id: string;
    severity: NotificationSeverity;
    summary: string;
    ts: string;
  }[];
  more?: number;
  incident?: { id: string; asset_id: string; title: string; status: 'open' | 'resolved' };
}

interface StoredVapid {
  public_key: string;
  private_key_sealed: string;
}

const vapidSettingKey = 'notifications.vapid';
const vapidContext = 'vapid';
const sendTimeoutMs = 10_000;
const maxInFlight = 64;
/** Web Push carries about 4 KiB; the digest lists alerts until the message would pass this. */
const maxPayloadBytes = 3000;

type AlertEntry = NonNullable<PushMessage['alerts']>[number];

function presentSubscription(row: PushSubscriptionRow): PushSubscription {
  return {
    id: row.id,
    device_id: row.device_id,
    endpoint_origin: new URL(row.endpoint).origin,
    min_severity: isNotificationSeverity(row.min_severity) ? row.min_severity : 'warning',
    quiet_hours: row.quiet_hours === null ? null : (JSON.parse(row.quiet_hours) as QuietHours),
    digest_window_s: row.digest_window_s,
    sent: row.sent_count,
    failed: row.failed_count,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const rank: Record<NotificationSeverity, number> = { info: 0, warning: 1, critical: 2 };

function highest(entries: readonly AlertEntry[]): NotificationSeverity {
  return entries.reduce<NotificationSeverity>(
    (top, e) => (rank[e.severity] > rank[top] ? e.severity : top),
    'info',
  );
}

/** A digest entry read back from the store: only a well-formed one is sent. */
function parseAlertEntry(value: unknown): AlertEntry | null {
  if (typeof value !== 'object' || value === null) return null;
  const { alert_id, asset_id, severity, summary, ts } = value as Record<string, unknown>;
  if (typeof alert_id !== 'string' || typeof asset_id !== 'string' || typeof ts !== 'string') return null;
  if (typeof summary !== 'string' || !isNotificationSeverity(severity)) return null;
  return { alert_id, asset_id, severity, summary, ts };
}

/** The message of a digest, listing alerts while it stays under the payload budget. */
function digestMessage(entries: readonly AlertEntry[], more: number): PushMessage {
  const listed: AlertEntry[] = [];
  let extra = more;
  for (const entry of entries) {
    const next: PushMessage = {
      kind: 'alerts',
      title: '',
      severity: 'info',
      alerts: [...listed, entry],
      more: extra,
    };
    if (Buffer.byteLength(JSON.stringify(next)) > maxPayloadBytes - 200) extra += 1;
    else listed.push(entry);
  }
  const [first] = listed;
  const total = listed.length + extra;
  return {
    kind: 'alerts',
    title: total === 1 && first ? first.summary : `${String(total)} alerts`,
    severity: highest(entries),
    alerts: listed,
    more: extra,
  };
}

function stringField(data: Record<string, unknown>, name: string): string {
  const value = data[name];
  return typeof value === 'string' ? value : '';
}

export function createPushService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  outbound: LiveOutbound;
  logger: Logger;
  minSeverity: () => NotificationSeverity;
  /** The users disabled now: their subscriptions receive nothing. */
  disabledUsers: () => Promise<ReadonlySet<string>>;
}): PushService {
  const { db, clock, audit, box, outbound, logger } = deps;
  const delivery = createDelivery<AlertEntry>({
    logger,
    clock,
    what: 'push',
    maxInFlight,
    sendTimeoutMs,
    onOverflow: (id) => countPushFailed(db, id, 'too many push messages in flight'),
    digests: createDigestStore(db),
    parse: parseAlertEntry,
    prepare: async (id, entries, more) => {
      const row = await findPushSubscription(db, id);
      // Read at send time: a digest for a user disabled since it opened is dropped (marked sent, never sent).
      if (!row || (await deps.disabledUsers()).has(row.user_id)) return null;
      const message = digestMessage(entries, more);
      return (signal) => deliver(row, message, signal);
    },
  });
  let closed = false;
  let vapid: Promise<VapidKeys> | null = null;

  async function loadOrCreateVapid(): Promise<VapidKeys> {
    const stored = (await readSetting(db, vapidSettingKey)) as StoredVapid | undefined;
    if (stored && typeof stored.public_key === 'string' && typeof stored.private_key_sealed === 'string') {
      return { publicKey: stored.public_key, privateKey: box.open(stored.private_key_sealed, vapidContext) };
    }
    const keys = generateVapidKeys();
    const value: StoredVapid = {
      public_key: keys.publicKey,
      private_key_sealed: box.seal(keys.privateKey, vapidContext),
    };
    await writeSetting(db, vapidSettingKey, value, clock.now());
    return keys;
  }

  function vapidKeys(): Promise<VapidKeys> {
    vapid ??= loadOrCreateVapid().catch((error: unknown) => {
      vapid = null;
      throw error;
    });
    return vapid;
  }

  async function deliver(row: PushSubscriptionRow, message: PushMessage, signal: AbortSignal): Promise<void> {
    try {
      const outcome = await sendWebPush(
        outbound.client(),
        await vapidKeys(),
        { endpoint: row.endpoint, p256dh: row.p256dh, auth: row.auth },
        JSON.stringify(message),
        {
          urgency: message.severity === 'critical' ? 'high' : 'normal',
          signal,
        },
      );
      if (outcome.sent) await countPushSent(db, row.id);
      else if (outcome.gone) {
        await deletePushSubscription(db, row.id);
        logger.info({ subscription: row.id }, 'push: subscription gone, deleted');
      } else await countPushFailed(db, row.id, outcome.error);
    } catch (error) {
      const refused = findOutboundRefused(error);
      const text = refused
        ? `refused by the egress guard: ${refused.message}`
        : error instanceof Error
          ? error.message
          : String(error);
      await countPushFailed(db, row.id, text.slice(0, 500));
    }
  }

  function dispatch(row: PushSubscriptionRow, message: PushMessage): void {
    delivery.send(row.id, (signal) => deliver(row, message, signal));
  }

  function enqueue(row: PushSubscriptionRow, entry: AlertEntry): void {
    delivery.collect(row.id, row.digest_window_s, entry);
  }

  function routingOf(row: PushSubscriptionRow, events: readonly string[]) {
    return {
      events,
      minSeverity: isNotificationSeverity(row.min_severity) ? row.min_severity : 'warning',
      quietHours: row.quiet_hours === null ? null : (JSON.parse(row.quiet_hours) as QuietHours),
    } as const;
  }

  async function route(event: HubEvent): Promise<void> {
    const data = event.data as Record<string, unknown>;
    const severity = isNotificationSeverity(data.severity) ? data.severity : 'warning';
    const now = clock.now();
    const disabled = await deps.disabledUsers();
    // A disabled user's devices are left out: no alert collected for them, no incident sent.
    const rows = (await allPushSubscriptions(db)).filter((row) => !disabled.has(row.user_id));
    if (event.type === 'alert.fired') {
      const entry: AlertEntry = {
        alert_id: stringField(data, 'alert_id'),
        asset_id: stringField(data, 'asset_id'),
        severity,
        summary: [stringField(data, 'asset_name'), stringField(data, 'summary')].filter(Boolean).join(': '),
        ts: event.ts,
      };
      for (const row of rows) {
        const decision = routeAlert(
          routingOf(row, ['alert.fired']),
          { type: event.type, severity },
          deps.minSeverity(),
          now,
        );
        if (decision === 'send') enqueue(row, entry);
      }
      return;
    }
    const resolved = event.type === 'incident.resolved';
    const message: PushMessage = {
      kind: 'incident',
      title: stringField(data, 'title'),
      severity,
      incident: {
        id: stringField(data, 'incident_id'),
        asset_id: stringField(data, 'asset_id'),
        title: stringField(data, 'title'),
        status: resolved ? 'resolved' : 'open',
      },
    };
    for (const row of rows) {
      // A resolution always goes out (it ends the device's persistent notification); an opening follows routing.
      const decision = resolved
        ? 'send'
        : routeAlert(routingOf(row, [event.type]), { type: event.type, severity }, deps.minSeverity(), now);
      if (decision === 'send') dispatch(row, message);
    }
  }

  async function own(ctx: ActionContext, id: string): Promise<PushSubscriptionRow> {
    const row = await findPushSubscription(db, id);
    if (!row || row.user_id !== ctx.principal.userId)
      throw new HubError('not_found', `no push subscription ${id}`);
    return row;
  }

  return {
    async publicKey() {
      return { public_key: (await vapidKeys()).publicKey };
    },

    async list(principal) {
      if (principal.userId === null) return [];
      return (await pushSubscriptionsOf(db, principal.userId)).map(presentSubscription);
    },

    async subscribe(ctx, input) {
      const userId = ctx.principal.userId;
      if (userId === null) throw new HubError('forbidden', 'push subscriptions belong to a signed-in user');
      const url = await vetOutboundUrl(outbound.client(), input.endpoint, { field: 'endpoint' });
      if (input.quiet_hours?.time_zone !== undefined && !isTimeZone(input.quiet_hours.time_zone)) {
        throw validationError('quiet_hours.time_zone', `unknown time zone ${input.quiet_hours.time_zone}`);
      }
      const existing = await pushSubscriptionsOf(db, userId);
      const others = existing.filter((r) => r.device_id !== input.device_id && r.endpoint !== input.endpoint);
      if (others.length >= pushLimits.subscriptionsPerUser) {
        throw new HubError(
          'conflict',
          `at most ${String(pushLimits.subscriptionsPerUser)} push subscriptions per user; remove one first`,
        );
      }
      const now = clock.now().toISOString();
      const row: PushSubscriptionRow = {
        id: newId('pushSubscription'),
        user_id: userId,
        device_id: input.device_id,
        endpoint: input.endpoint,
        p256dh: input.keys.p256dh,
        auth: input.keys.auth,
        min_severity: input.min_severity ?? 'warning',
        quiet_hours: input.quiet_hours ? JSON.stringify(input.quiet_hours) : null,
        digest_window_s: input.digest_window_s ?? 0,
        sent_count: 0,
        failed_count: 0,
        last_error: null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await replacePushSubscription(trx, row);
        await audit.record(trx, ctx, {
          action: 'push_subscription.created',
          targetType: 'push_subscription',
          targetId: row.id,
          detail: { device_id: row.device_id, endpoint_origin: url.origin },
        });
      });
      // Keys made now rather than at the first alert: the device already holds the public one.
      await vapidKeys();
      return presentSubscription(row);
    },

    async unsubscribe(ctx, id) {
      const row = await own(ctx, id);
      await db.transaction().execute(async (trx) => {
        await deletePushSubscription(trx, id);
        await audit.record(trx, ctx, {
          action: 'push_subscription.deleted',
          targetType: 'push_subscription',
          targetId: id,
          detail: { device_id: row.device_id },
        });
      });
      delivery.drop(id);
      return presentSubscription(row);
    },

    async forgetUser(trx, _ctx, user) {
      const rows = await pushSubscriptionsOf(trx, user.userId);
      const deleted = await deletePushSubscriptionsOf(trx, user.userId);
      // Before the commit: should the delete fail after all, a pending digest is lost, never sent to the gone.
      for (const row of rows) delivery.drop(row.id);
      return { push_subscriptions_deleted: deleted };
    },

    onEvent(event) {
      if (closed) return;
      route(event).catch((error: unknown) => {
        logger.error({ err: error }, 'push: routing an event failed');
      });
    },

    async close() {
      closed = true;
      await delivery.close();
    },
  };
}
