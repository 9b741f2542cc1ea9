import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import { randomBytes } from 'node:crypto';
import { newId, webhookTestEventType, type Webhook, type WebhookTestResult } from '@svc/protocol';
import type { ActionContext } from '../../access/principal.js';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import { vetOutboundUrl } from '../../platform/outbound/outbound-url.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AuditService } from '../audit/audit.service.js';
import { attemptDelivery } from './webhook-delivery.js';
import type { WebhookDeliveries } from './webhook-deliveries.js';
import { parseEvents, secretContext, type WebhookTargets } from './webhook-targets.js';
import {
  deleteWebhook,
  findWebhook,
  insertWebhook,
  listWebhooks,
  recordFailedAttempt,
  updateWebhook,
  type WebhookRow,
} from './webhooks.repository.js';
import type { WebhookService } from './webhooks.service.js';

type WebhookApi = Pick<WebhookService, 'list' | 'get' | 'create' | 'update' | 'remove' | 'sendTest'>;

interface WebhooksApiDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  outbound: LiveOutbound;
  telemetry?: Pick<Telemetry, 'webhookDelivery'> | undefined;
  attemptTimeoutMs: number;
  targets: WebhookTargets;
  deliveries: WebhookDeliveries;
  /** Tells the other processes that the webhook changed. */
  tellOthers: (id: string) => void;
}

/** The webhooks' API: reads, writes (each kept in this process's targets and told to the others), tests. */
export function createWebhooksApi(deps: WebhooksApiDeps): WebhookApi {
  const { db, clock, audit, box, outbound, targets, deliveries, tellOthers } = deps;

  function present(row: WebhookRow): Webhook {
    return {
      id: row.id,
      name: row.name,
      url: row.url,
      events: parseEvents(row.events),
      enabled: row.enabled === 1,
      deliveries: {
        delivered: row.delivered_count,
        failed_attempts: row.failed_attempts,
        dropped: row.dropped_count,
        pending: deliveries.queue.pendingFor(row.id),
        last_delivered_at: row.last_delivered_at,
        last_error: row.last_error,
        last_error_at: row.last_error_at,
      },
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  /** 400 naming `url` unless the egress guard would let the hub reach it now. */
  async function vetUrl(text: string): Promise<void> {
    await vetOutboundUrl(outbound.client(), text, {
      field: 'url',
      credentialsHint: 'the secret signs deliveries',
    });
  }

  async function load(id: string): Promise<WebhookRow> {
    const row = await findWebhook(db, id);
    if (!row) throw new HubError('not_found', `no webhook ${id}`);
    return row;
  }

  return {
    async list(page) {
      const { rows, total } = await listWebhooks(db, pageWindow(page));
      return toPage(rows.map(present), total, page);
    },

    get: async (id) => present(await load(id)),

    async create(ctx, input) {
      await vetUrl(input.url);
      const now = clock.now().toISOString();
      const id = newId('webhook');
      const secret = input.secret ?? `whsec_${randomBytes(24).toString('base64url')}`;
      const row: WebhookRow = {
        id,
        name: input.name,
        url: input.url,
        secret_sealed: box.seal(secret, secretContext(id)),
        events: JSON.stringify(input.events ?? []),
        enabled: input.enabled === false ? 0 : 1,
        delivered_count: 0,
        failed_attempts: 0,
        dropped_count: 0,
        last_delivered_at: null,
        last_error: null,
        last_error_at: null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await insertWebhook(trx, row);
        await audit.record(trx, ctx, {
          action: 'webhook.created',
          targetType: 'webhook',
          targetId: id,
          detail: { name: row.name, url: row.url, events: input.events ?? [] },
        });
      });
      await targets.ensureLoaded();
      targets.set(row);
      tellOthers(id);
      return { ...present(row), secret };
    },

    async update(ctx, id, input) {
      const row = await load(id);
      if (input.url !== undefined && input.url !== row.url) await vetUrl(input.url);
      const changes: Partial<WebhookRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.url !== undefined) changes.url = input.url;
      if (input.events !== undefined) changes.events = JSON.stringify(input.events);
      if (input.enabled !== undefined) changes.enabled = input.enabled ? 1 : 0;
      if (input.secret !== undefined) changes.secret_sealed = box.seal(input.secret, secretContext(id));
      await db.transaction().execute(async (trx) => {
        await updateWebhook(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'webhook.updated',
          targetType: 'webhook',
          targetId: id,
          // Which fields moved; never the secret's value.
          detail: { fields: Object.keys(input) },
        });
      });
      const updated = { ...row, ...changes };
      await targets.ensureLoaded();
      targets.set(updated);
      tellOthers(id);
      return present(updated);
    },

    async remove(ctx, id) {
      const row = await load(id);
      await db.transaction().execute(async (trx) => {
        await deleteWebhook(trx, id);
        await audit.record(trx, ctx, {
          action: 'webhook.deleted',
          targetType: 'webhook',
          targetId: id,
          detail: { name: row.name },
        });
      });
      targets.forget(id);
      tellOthers(id);
      return present(row);
    },

    sendTest: async (ctx, id) => sendTestDelivery(deps, ctx, await load(id)),
  };
}

/** One attempt now, recorded like any delivery; its outcome is answered, never retried. */
async function sendTestDelivery(
  deps: WebhooksApiDeps,
  ctx: ActionContext,
  row: WebhookRow,
): Promise<WebhookTestResult> {
  const { db, clock, audit, outbound, targets, deliveries } = deps;
  const id = row.id;
  const target = targets.targetOf(row);
  const ts = clock.now().toISOString();
  const job = deliveries.newJob(target, webhookTestEventType, newId('event'), ts, {
    asset_ids: [],
    webhook_id: id,
    message: 'A test delivery from svc hub',
  });
  if (!job) throw new Error('the test event is above the data limit');
  await db.transaction().execute(async (trx) => {
    await audit.record(trx, ctx, { action: 'webhook.tested', targetType: 'webhook', targetId: id });
  });
  const started = performance.now();
  job.attempts = 1;
  const result = await attemptDelivery(
    outbound.client(),
    target,
    job,
    AbortSignal.timeout(deps.attemptTimeoutMs),
  );
  const duration = Math.round(performance.now() - started);
  deps.telemetry?.webhookDelivery(result.ok ? 'delivered' : 'failed');
  if (result.ok) {
    deliveries.finish(job, 'delivered', { status: result.status, error: null });
  } else {
    deliveries.track(
      recordFailedAttempt(db, id, result.error, clock.now().toISOString()),
      'counting a failure',
    );
    deliveries.finish(job, 'dropped', { status: result.status, error: result.error });
  }
  return {
    delivery_id: job.deliveryId,
    outcome: result.ok ? 'delivered' : result.error.startsWith('refused') ? 'refused' : 'failed',
    http_status: result.status,
    error: result.ok ? null : result.error,
    duration_ms: duration,
  };
}
