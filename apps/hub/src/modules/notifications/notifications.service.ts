import {
  newId,
  type NotificationChannel,
  type NotificationChannelCreate,
  type NotificationChannelSettings,
  type NotificationChannelUpdate,
  type NotificationSeverity,
  type NotificationTestResult,
  type QuietHours,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
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
  allChannels,
  countFailed,
  countSent,
  countSuppressed,
  deleteChannel,
  findChannel,
  insertChannel,
  updateChannel,
  type ChannelRow,
} from './notifications.repository.js';
import { createDelivery } from './delivery.js';
import { dependentsLine } from './impact-line.js';
import { createDigestStore } from './digest-store.js';
import { isNotificationSeverity, isTimeZone, routeAlert } from './routing.js';
import { sendNotification, type AlertItem, type ChannelTarget, type Notification } from './senders.js';

export interface NotificationService {
  list(): Promise<NotificationChannel[]>;
  get(id: string): Promise<NotificationChannel>;
  create(ctx: ActionContext, input: NotificationChannelCreate): Promise<NotificationChannel>;
  update(ctx: ActionContext, id: string, input: NotificationChannelUpdate): Promise<NotificationChannel>;
  remove(ctx: ActionContext, id: string): Promise<NotificationChannel>;
  sendTest(ctx: ActionContext, id: string): Promise<NotificationTestResult>;
  onAlert(event: HubEvent): void;
  /** Sends the digests whose window ended (each process sweeps every few seconds; tests call it). */
  flushDueDigests(): Promise<void>;
  close(): Promise<void>;
}

type StoredSettings = Omit<NotificationChannelSettings, 'smtp_password'>;

interface Channel {
  row: ChannelRow;
  settings: StoredSettings;
  events: string[];
  quietHours: QuietHours | null;
}

const passwordContext = (id: string) => `notification:${id}`;
const defaultEvents = ['alert.fired', 'alert.resolved'];
const sendTimeoutMs = 10_000;
/** Sends in flight at once across channels; above it a notification fails (and is counted) at once. */
const maxInFlight = 64;
const severityRank: Record<NotificationSeverity, number> = { info: 0, warning: 1, critical: 2 };

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  return JSON.parse(text) as T;
}

function channelOf(row: ChannelRow): Channel {
  return {
    row,
    settings: parseJson<StoredSettings>(row.settings, {}),
    events: parseJson<string[]>(row.events, defaultEvents),
    quietHours: parseJson<QuietHours | null>(row.quiet_hours, null),
  };
}

function present(channel: Channel): NotificationChannel {
  const { row, settings } = channel;
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as NotificationChannel['kind'],
    enabled: row.enabled === 1,
    settings: {
      url: settings.url ?? null,
      smtp_host: settings.smtp_host ?? null,
      smtp_port: settings.smtp_port ?? null,
      smtp_security: settings.smtp_security ?? null,
      smtp_username: settings.smtp_username ?? null,
      smtp_password_set: row.password_sealed !== null,
      from: settings.from ?? null,
      to: settings.to ?? [],
    },
    events: channel.events,
    min_severity: isNotificationSeverity(row.min_severity) ? row.min_severity : 'warning',
    quiet_hours: channel.quietHours,
    digest_window_s: row.digest_window_s,
    stats: {
      sent: row.sent_count,
      failed: row.failed_count,
      suppressed: row.suppressed_count,
      last_sent_at: row.last_sent_at,
      last_error: row.last_error,
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** What an alert event says, read loosely: the alerts area owns the payload and may add to it. */
function alertItem(event: HubEvent): AlertItem {
  const data = event.data as Record<string, unknown>;
  const severity = isNotificationSeverity(data.severity) ? data.severity : 'warning';
  const summaryField = [data.summary, data.message, data.title, data.rule_name].find(
    (v) => typeof v === 'string',
  );
  const alertId = typeof data.alert_id === 'string' ? data.alert_id : event.id;
  const text = typeof summaryField === 'string' ? summaryField : `alert ${alertId}`;
  // Which machine, first: "web-1: offline for 5 minutes".
  const subject = typeof data.asset_name === 'string' ? `${data.asset_name}: ${text}` : text;
  return {
    type: event.type,
    alertId,
    severity,
    ts: event.ts,
    summary: subject.slice(0, 500),
  };
}

/** A digest item read back from the store: only a well-formed one is sent. */
function parseAlertItem(value: unknown): AlertItem | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const { type, alertId, severity, ts, summary } = v;
  if (typeof type !== 'string' || typeof alertId !== 'string' || typeof ts !== 'string') return null;
  if (typeof summary !== 'string' || !isNotificationSeverity(severity)) return null;
  const impact = typeof v.impact === 'string' ? { impact: v.impact.slice(0, 200) } : {};
  return { type, alertId, severity, ts, summary: summary.slice(0, 500), ...impact };
}

function titleOf(items: readonly AlertItem[], more: number): string {
  const [first] = items;
  if (items.length === 1 && more === 0 && first) return `svc hub: ${first.type} (${first.severity})`;
  return `svc hub: ${String(items.length + more)} alert events`;
}

function highest(items: readonly AlertItem[]): NotificationSeverity {
  return items.reduce<NotificationSeverity>(
    (top, item) => (severityRank[item.severity] > severityRank[top] ? item.severity : top),
    'info',
  );
}

const noteOf = (items: AlertItem[], more: number): Notification => ({
  title: titleOf(items, more),
  severity: highest(items),
  items,
  more,
});

export function createNotificationService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  outbound: LiveOutbound;
  logger: Logger;
  minSeverity: () => NotificationSeverity;
  /** How many assets depend on one (the dependency graph's blast radius), for the alert's impact line. */
  dependents?: (assetId: string) => Promise<{ total: number; direct: number }>;
}): NotificationService {
  const { db, clock, audit, box, outbound, logger } = deps;
  const delivery = createDelivery<AlertItem>({
    logger,
    clock,
    what: 'notifications',
    maxInFlight,
    sendTimeoutMs,
    onOverflow: (id) => countFailed(db, id, 'too many notifications in flight'),
    digests: createDigestStore(db),
    parse: parseAlertItem,
    prepare: async (id, items, more) => {
      const row = await findChannel(db, id);
      // A channel deleted or turned off while its window was open: nothing goes out.
      if (row?.enabled !== 1) return null;
      const channel = channelOf(row);
      const note = noteOf(items, more);
      return (signal) => deliver(channel, note, signal);
    },
  });
  let closed = false;

  function track(work: Promise<void>, what: string): void {
    work.catch((error: unknown) => {
      logger.error({ err: error }, `notifications: ${what} failed`);
    });
  }

  async function validate(
    kind: NotificationChannel['kind'],
    settings: NotificationChannelSettings,
    quiet: QuietHours | null | undefined,
  ): Promise<void> {
    if (quiet?.time_zone !== undefined && !isTimeZone(quiet.time_zone)) {
      throw validationError('quiet_hours.time_zone', `unknown time zone ${quiet.time_zone}`);
    }
    if (kind === 'email') {
      if (settings.smtp_host === undefined) throw validationError('settings.smtp_host', 'required for email');
      if (settings.from === undefined) throw validationError('settings.from', 'required for email');
      if (settings.to === undefined) throw validationError('settings.to', 'required for email');
      if (settings.url !== undefined) throw validationError('settings.url', 'not used by email');
      return;
    }
    if (settings.url === undefined) throw validationError('settings.url', `required for ${kind}`);
    await vetOutboundUrl(outbound.client(), settings.url, { field: 'settings.url' });
  }

  async function load(id: string): Promise<Channel> {
    const row = await findChannel(db, id);
    if (!row) throw new HubError('not_found', `no notification channel ${id}`);
    return channelOf(row);
  }

  function targetOf(channel: Channel): ChannelTarget {
    const { row, settings } = channel;
    if (row.kind !== 'email') {
      return { kind: row.kind as ChannelTarget['kind'], url: settings.url ?? null, smtp: null };
    }
    const security = settings.smtp_security ?? 'starttls';
    return {
      kind: 'email',
      url: null,
      smtp: {
        host: settings.smtp_host ?? '',
        port: settings.smtp_port ?? (security === 'tls' ? 465 : security === 'starttls' ? 587 : 25),
        security,
        username: settings.smtp_username ?? null,
        password:
          row.password_sealed === null ? null : box.open(row.password_sealed, passwordContext(row.id)),
        from: settings.from ?? '',
        to: settings.to ?? [],
      },
    };
  }

  async function deliver(channel: Channel, note: Notification, signal: AbortSignal): Promise<string | null> {
    try {
      await sendNotification(outbound.client(), targetOf(channel), note, signal);
      await countSent(db, channel.row.id, clock.now().toISOString());
      return null;
    } catch (error) {
      const refused = findOutboundRefused(error);
      const message = refused
        ? `refused by the egress guard: ${refused.message}`
        : error instanceof Error
          ? error.message
          : String(error);
      await countFailed(db, channel.row.id, message.slice(0, 500));
      return message;
    }
  }

  /** Into the channel's digest: the first alert of a window opens it, the window's end sends them all. */
  function enqueue(channel: Channel, item: AlertItem): void {
    delivery.collect(channel.row.id, channel.row.digest_window_s, item);
  }

  /** The item with its impact line when its asset has dependents; a failed count only loses the line. */
  async function withImpact(item: AlertItem, event: HubEvent): Promise<AlertItem> {
    const assetId = (event.data as Record<string, unknown>).asset_id;
    if (!deps.dependents || typeof assetId !== 'string') return item;
    try {
      const line = dependentsLine(await deps.dependents(assetId));
      return line === null ? item : { ...item, impact: line };
    } catch (error) {
      logger.warn({ err: error }, 'notifications: counting an asset’s dependents failed');
      return item;
    }
  }

  async function route(event: HubEvent): Promise<void> {
    const plain = alertItem(event);
    const now = clock.now();
    const sendTo: Channel[] = [];
    for (const row of await allChannels(db)) {
      if (row.enabled !== 1) continue;
      const channel = channelOf(row);
      const decision = routeAlert(
        {
          events: channel.events,
          minSeverity: isNotificationSeverity(row.min_severity) ? row.min_severity : 'warning',
          quietHours: channel.quietHours,
        },
        { type: event.type, severity: plain.severity },
        deps.minSeverity(),
        now,
      );
      if (decision === 'send') sendTo.push(channel);
      else if (decision === 'below_severity' || decision === 'quiet_hours') {
        await countSuppressed(db, row.id);
      }
    }
    // The dependents are counted only when something goes out, once for every channel.
    if (sendTo.length === 0) return;
    const item = await withImpact(plain, event);
    for (const channel of sendTo) enqueue(channel, item);
  }

  return {
    list: async () => (await allChannels(db)).map((row) => present(channelOf(row))),
    get: async (id) => present(await load(id)),

    async create(ctx, input) {
      await validate(input.kind, input.settings, input.quiet_hours);
      const now = clock.now().toISOString();
      const id = newId('notificationChannel');
      const { smtp_password: password, ...settings } = input.settings;
      const row: ChannelRow = {
        id,
        name: input.name,
        kind: input.kind,
        enabled: input.enabled === false ? 0 : 1,
        settings: JSON.stringify(settings),
        password_sealed: password === undefined ? null : box.seal(password, passwordContext(id)),
        events: JSON.stringify(input.events ?? defaultEvents),
        min_severity: input.min_severity ?? 'warning',
        quiet_hours: input.quiet_hours ? JSON.stringify(input.quiet_hours) : null,
        digest_window_s: input.digest_window_s ?? 0,
        sent_count: 0,
        failed_count: 0,
        suppressed_count: 0,
        last_sent_at: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await insertChannel(trx, row);
        await audit.record(trx, ctx, {
          action: 'notification_channel.created',
          targetType: 'notification_channel',
          targetId: id,
          detail: { name: row.name, kind: row.kind },
        });
      });
      return present(channelOf(row));
    },

    async update(ctx, id, input) {
      const channel = await load(id);
      const kind = channel.row.kind as NotificationChannel['kind'];
      const changes: Partial<ChannelRow> = { updated_at: clock.now().toISOString() };
      if (input.settings !== undefined || input.quiet_hours !== undefined) {
        await validate(kind, input.settings ?? { ...channel.settings }, input.quiet_hours);
      }
      if (input.settings !== undefined) {
        const { smtp_password: password, ...settings } = input.settings;
        changes.settings = JSON.stringify(settings);
        if (password !== undefined) changes.password_sealed = box.seal(password, passwordContext(id));
      }
      if (input.name !== undefined) changes.name = input.name;
      if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
      if (input.events !== undefined) changes.events = JSON.stringify(input.events);
      if (input.min_severity !== undefined) changes.min_severity = input.min_severity;
      if (input.quiet_hours !== undefined) {
        changes.quiet_hours = input.quiet_hours === null ? null : JSON.stringify(input.quiet_hours);
      }
      if (input.digest_window_s !== undefined) changes.digest_window_s = input.digest_window_s;
      await db.transaction().execute(async (trx) => {
        await updateChannel(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'notification_channel.updated',
          targetType: 'notification_channel',
          targetId: id,
          detail: { fields: Object.keys(input) },
        });
      });
      return present(channelOf({ ...channel.row, ...changes }));
    },

    async remove(ctx, id) {
      const channel = await load(id);
      await db.transaction().execute(async (trx) => {
        await deleteChannel(trx, id);
        await audit.record(trx, ctx, {
          action: 'notification_channel.deleted',
          targetType: 'notification_channel',
          targetId: id,
          detail: { name: channel.row.name },
        });
      });
      delivery.drop(id);
      return present(channel);
    },

    async sendTest(ctx, id) {
      const channel = await load(id);
      await db.transaction().execute(async (trx) => {
        await audit.record(trx, ctx, {
          action: 'notification_channel.tested',
          targetType: 'notification_channel',
          targetId: id,
        });
      });
      const item: AlertItem = {
        type: 'notification.test',
        alertId: 'test',
        severity: 'info',
        ts: clock.now().toISOString(),
        summary: 'A test notification from svc hub',
      };
      const error = await deliver(
        channel,
        { title: 'svc hub: test notification', severity: 'info', items: [item], more: 0 },
        AbortSignal.timeout(sendTimeoutMs),
      );
      return { sent: error === null, error };
    },

    onAlert(event) {
      if (closed) return;
      track(route(event), 'routing an alert');
    },

    flushDueDigests: () => delivery.flushDue(),

    async close() {
      closed = true;
      await delivery.close();
    },
  };
}
