import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import { randomBytes } from 'node:crypto';
import {
  newId,
  webhookLimits,
  webhookTestEventType,
  type Webhook,
  type WebhookCreate,
  type WebhookCreated,
  type WebhookReplace,
  type WebhookTestResult,
  type WebhookUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { HubEvent } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import { vetOutboundUrl } from '../../platform/outbound/outbound-url.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AuditService } from '../audit/audit.service.js';
import { allKeys, type CacheInvalidation } from '../../platform/cluster/invalidation.js';
import { alwaysHeldLease, type NodeLease } from '../../platform/cluster/node-registry.js';
import { createDeliveryQueue, type DeliveryJob, type DeliveryQueue } from './delivery-queue.js';
import { attemptDelivery, deliveryBody, type SignedDelivery } from './webhook-delivery.js';
import {
  allWebhooks,
  deleteWebhook,
  findWebhook,
  insertPending,
  insertWebhook,
  listPending,
  listWebhooks,
  recordDelivery,
  recordFailedAttempt,
  releaseClaims,
  renewClaims,
  takeOverPending,
  updatePending,
  updateWebhook,
  type PendingDeliveryRow,
  type WebhookRow,
} from './webhooks.repository.js';

export interface WebhookService {
  list(page: PageRequest): Promise<Page<Webhook>>;
  get(id: string): Promise<Webhook>;
  create(ctx: ActionContext, input: WebhookCreate): Promise<WebhookCreated>;
  update(ctx: ActionContext, id: string, input: WebhookUpdate | WebhookReplace): Promise<Webhook>;
  remove(ctx: ActionContext, id: string): Promise<Webhook>;
  sendTest(ctx: ActionContext, id: string): Promise<WebhookTestResult>;
  /** Queues the event for every enabled webhook whose filter takes it. */
  onEvent(event: HubEvent): void;
  start(): void;
  /** Takes over the deliveries a hub process that is gone still held (the registry tells one process). */
  onNodeGone(nodeId: string): Promise<void>;
  /** Another process changed or removed the webhook: its row is read again (cache invalidation). */
  reloadWebhook(id: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * This process in the cluster (decision 0040): each pending delivery is claimed by the node that queued it,
 * renewed while it holds it, and taken over only when the claim expired or its node is gone.
 */
export interface WebhookCluster {
  nodeId: string;
  /** False for a cluster of one: a start takes every pending delivery, as before claims existed. */
  shared: boolean;
  liveNodes(): ReadonlySet<string>;
  /** This process's lease (decision 0053): claims are taken and renewed only while it holds. */
  lease?: NodeLease;
}

export interface WebhookDeliveryOptions {
  workers: number;
  perWebhook: number;
  maxPending: number;
  retryDelaysMs: readonly number[];
  attemptTimeoutMs: number;
  /** How long a claim on a pending delivery holds unless renewed (renewed every third of it). */
  claimTtlMs: number;
}

const defaultDeliveryOptions: WebhookDeliveryOptions = {
  workers: 16,
  perWebhook: 2,
  maxPending: 10_000,
  retryDelaysMs: [1_000, 5_000, 30_000],
  attemptTimeoutMs: 10_000,
  claimTtlMs: 60_000,
};

/** What the dispatcher holds of a webhook: read once, kept current by this service's own writes. */
interface Target {
  id: string;
  url: string;
  secret: string;
  events: ReadonlySet<string> | null;
  enabled: boolean;
}

interface Job extends DeliveryJob, SignedDelivery {
  eventId: string;
  createdAt: string;
  /** The job's writes to its pending row, in order (insert, attempts, removal). */
  writes: Promise<void>;
}

const secretContext = (id: string) => `webhook:${id}`;
/** The invalidation topic of webhooks (a webhook id). */
export const webhookCacheTopic = 'webhooks';

function parseEvents(text: string): string[] {
  const parsed: unknown = JSON.parse(text);
  return Array.isArray(parsed) ? parsed.filter((e): e is string => typeof e === 'string') : [];
}

export function createWebhookService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  outbound: LiveOutbound;
  logger: Logger;
  delivery?: Partial<WebhookDeliveryOptions>;
  /** Counts delivery attempts by outcome (the hub's /metrics). */
  telemetry?: Pick<Telemetry, 'webhookDelivery'>;
  cluster?: WebhookCluster;
  /** Tells the other processes that a webhook changed, so their targets follow (decision 0040). */
  invalidation?: Pick<CacheInvalidation, 'invalidate' | 'flush'>;
}): WebhookService {
  const { db, clock, audit, box, outbound, logger } = deps;
  const options = { ...defaultDeliveryOptions, ...deps.delivery };
  const cluster: WebhookCluster = deps.cluster ?? {
    nodeId: 'node_local',
    shared: false,
    liveNodes: () => new Set(['node_local']),
  };
  const lease = cluster.lease ?? alwaysHeldLease();
  /** Deliveries this process holds (queued, in flight or waiting for a retry): never taken over twice. */
  const held = new Map<string, string>();
  let claimTimer: NodeJS.Timeout | null = null;
  const claimExpiry = () => new Date(clock.now().getTime() + options.claimTtlMs).toISOString();
  const targets = new Map<string, Target>();
  let loaded: Promise<void> | null = null;
  let restored: Promise<void> | null = null;
  let closing = false;
  /** Reloads another process asked for, not finished yet: an event waits for them before it is matched. */
  const reloading = new Set<Promise<void>>();
  /** Writes not finished yet: close() waits for them before the database closes. */
  const writing = new Set<Promise<void>>();

  function targetOf(row: WebhookRow): Target {
    const events = parseEvents(row.events);
    return {
      id: row.id,
      url: row.url,
      secret: box.open(row.secret_sealed, secretContext(row.id)),
      events: events.length === 0 ? null : new Set(events),
      enabled: row.enabled === 1,
    };
  }

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
        pending: queue.pendingFor(row.id),
        last_delivered_at: row.last_delivered_at,
        last_error: row.last_error,
        last_error_at: row.last_error_at,
      },
      created_at: row.created_at,
      updated_at: row.updated_at,
    };
  }

  /** Writes happen after the fact; a failure is logged, never thrown into the queue. */
  function track(work: Promise<void>, what: string): void {
    const settled = work.catch((error: unknown) => {
      logger.error({ err: error }, `webhooks: ${what} failed`);
    });
    writing.add(settled);
    void settled.finally(() => writing.delete(settled));
  }

  /** A write to the job's pending row, after the ones before it (an insert may still be on its way). */
  function persist(job: Job, write: () => Promise<void>, what: string): void {
    job.writes = job.writes.then(write).catch((error: unknown) => {
      logger.error({ err: error }, `webhooks: ${what} failed`);
    });
    track(job.writes, what);
  }

  function finish(
    job: Job,
    outcome: 'delivered' | 'dropped',
    detail: { status: number | null; error: string | null },
  ) {
    held.delete(job.deliveryId);
    const record = {
      id: job.deliveryId,
      webhook_id: job.webhookId,
      event_id: job.eventId,
      event_type: job.type,
      outcome,
      attempts: job.attempts,
      http_status: detail.status,
      error: detail.error,
      created_at: job.createdAt,
      finished_at: clock.now().toISOString(),
    };
    persist(
      job,
      () => db.transaction().execute((trx) => recordDelivery(trx, record)),
      'recording a delivery',
    );
  }

  const pendingRow = (job: Job, nextAttemptAt: string): PendingDeliveryRow => ({
    id: job.deliveryId,
    webhook_id: job.webhookId,
    event_id: job.eventId,
    event_type: job.type,
    ts: job.ts,
    body: job.body,
    attempts: job.attempts,
    next_attempt_at: nextAttemptAt,
    created_at: job.createdAt,
    claimed_by: cluster.nodeId,
    claim_expires_at: claimExpiry(),
  });

  const queue: DeliveryQueue<Job> = createDeliveryQueue<Job>({
    ...options,
    attempt: (job, signal) => {
      const target = targets.get(job.webhookId);
      if (!target)
        return Promise.resolve({ ok: false, status: null, error: 'webhook removed', retry: false });
      return attemptDelivery(outbound.client(), target, job, signal).then((result) => {
        deps.telemetry?.webhookDelivery(result.ok ? 'delivered' : 'failed');
        return result;
      });
    },
    onAttemptFailed: (job, result, retryInMs) => {
      const now = clock.now();
      track(recordFailedAttempt(db, job.webhookId, result.error, now.toISOString()), 'counting a failure');
      if (retryInMs === null) return;
      const next = {
        attempts: job.attempts,
        next_attempt_at: new Date(now.getTime() + retryInMs).toISOString(),
      };
      persist(job, () => updatePending(db, job.deliveryId, next), 'keeping a retry');
    },
    onFinished: finish,
  });

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

  function ensureLoaded(): Promise<void> {
    loaded ??= allWebhooks(db).then((rows) => {
      for (const row of rows) targets.set(row.id, targetOf(row));
    });
    return loaded;
  }

  function newJob(target: Target, type: string, eventId: string, ts: string, data: unknown): Job | null {
    const deliveryId = newId('webhookDelivery');
    const body = deliveryBody(deliveryId, type, ts, data);
    const job: Job = {
      deliveryId,
      webhookId: target.id,
      attempts: 0,
      id: deliveryId,
      type,
      ts,
      body,
      eventId,
      createdAt: clock.now().toISOString(),
      writes: Promise.resolve(),
    };
    if (Buffer.byteLength(JSON.stringify(data)) > webhookLimits.dataBytes) {
      finish(job, 'dropped', { status: null, error: 'event data above 256 KiB' });
      return null;
    }
    return job;
  }

  /**
   * Tells the other processes at once, not after the invalidation window: an event caused on another process
   * right after this change is matched against the webhook as it is now.
   */
  function tellOthers(id: string): void {
    deps.invalidation?.invalidate(webhookCacheTopic, id);
    deps.invalidation?.flush();
  }

  async function reload(id: string): Promise<void> {
    if (loaded === null) return;
    await loaded;
    if (id === allKeys) {
      const rows = await allWebhooks(db);
      const ids = new Set(rows.map((r) => r.id));
      for (const known of [...targets.keys()]) if (!ids.has(known)) forget(known);
      for (const r of rows) targets.set(r.id, targetOf(r));
      return;
    }
    const row = await findWebhook(db, id);
    if (row) {
      targets.set(id, targetOf(row));
      return;
    }
    forget(id);
  }

  /** A removed webhook: nothing more is sent to it from here. */
  function forget(webhookId: string): void {
    targets.delete(webhookId);
    queue.forget(webhookId);
    for (const [deliveryId, of] of held) if (of === webhookId) held.delete(deliveryId);
  }

  /** A pending row no process holds now: never claimed, claim expired, holder gone, or a cluster of one. */
  function isClaimable(row: PendingDeliveryRow, nowIso: string, live: ReadonlySet<string>): boolean {
    if (held.has(row.id)) return false;
    if (!cluster.shared || row.claimed_by === null || row.claim_expires_at === null) return true;
    if (row.claimed_by === cluster.nodeId) return false;
    return row.claim_expires_at < nowIso || !live.has(row.claimed_by);
  }

  /**
   * Pending deliveries no process holds go (back) into this process's queue, oldest first, each at its next
   * attempt time, once claimed here; rows beyond the queue's bound are dropped and counted like a full queue's.
   * At start that is what a clean stop left pending (and, in a cluster, what dead processes left).
   */
  async function takeOver(): Promise<number> {
    const batch = 500;
    let after: PendingDeliveryRow | null = null;
    let taken = 0;
    for (;;) {
      const nowIso = clock.now().toISOString();
      const live = cluster.liveNodes();
      const rows: PendingDeliveryRow[] = await listPending(
        db,
        after,
        batch,
        cluster.shared ? { nowIso, live: [...live] } : undefined,
      );
      after = rows.at(-1) ?? null;
      // The page's rows claimed first, then queued at once: the queue's bound applies to the page as a whole.
      const claimed: PendingDeliveryRow[] = [];
      for (const row of rows) {
        if (closing || !isClaimable(row, nowIso, live)) continue;
        if (await takeOverPending(db, row, cluster.nodeId, claimExpiry(), lease.fence())) claimed.push(row);
      }
      // Stopping meanwhile: what was claimed stays in its rows, handed back by close().
      if (closing) return taken;
      for (const row of claimed) {
        const job: Job = {
          deliveryId: row.id,
          webhookId: row.webhook_id,
          attempts: row.attempts,
          id: row.id,
          type: row.event_type,
          ts: row.ts,
          body: row.body,
          eventId: row.event_id,
          createdAt: row.created_at,
          writes: Promise.resolve(),
        };
        taken += 1;
        const delay = Date.parse(row.next_attempt_at) - clock.now().getTime();
        held.set(job.deliveryId, job.webhookId);
        if (!queue.enqueue(job, Math.max(0, delay))) held.delete(job.deliveryId);
      }
      if (rows.length < batch) return taken;
    }
  }

  /** Renews this node's claims, then takes over those that expired (a process died unseen). */
  async function keepClaims(): Promise<void> {
    await renewClaims(db, cluster.nodeId, claimExpiry(), lease.fence());
    await takeOver();
  }

  /**
   * The webhooks loaded and what a stop left pending restored, once, before any new delivery is queued (by
   * start(), or by an event that comes first): a new delivery's row is never read back as one to restore.
   */
  function ready(): Promise<void> {
    restored ??= ensureLoaded()
      .then(takeOver)
      .then(() => undefined)
      .catch((error: unknown) => {
        loaded = null;
        restored = null;
        logger.error({ err: error }, 'webhooks: loading webhooks or pending deliveries failed');
      });
    return restored;
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
      await ensureLoaded();
      targets.set(id, targetOf(row));
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
      await ensureLoaded();
      targets.set(id, targetOf(updated));
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
      forget(id);
      tellOthers(id);
      return present(row);
    },

    async sendTest(ctx, id) {
      const row = await load(id);
      const target = targetOf(row);
      const ts = clock.now().toISOString();
      const job = newJob(target, webhookTestEventType, newId('event'), ts, {
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
        AbortSignal.timeout(options.attemptTimeoutMs),
      );
      const duration = Math.round(performance.now() - started);
      deps.telemetry?.webhookDelivery(result.ok ? 'delivered' : 'failed');
      if (result.ok) {
        finish(job, 'delivered', { status: result.status, error: null });
      } else {
        track(recordFailedAttempt(db, id, result.error, clock.now().toISOString()), 'counting a failure');
        finish(job, 'dropped', { status: result.status, error: result.error });
      }
      return {
        delivery_id: job.deliveryId,
        outcome: result.ok ? 'delivered' : result.error.startsWith('refused') ? 'refused' : 'failed',
        http_status: result.status,
        error: result.ok ? null : result.error,
        duration_ms: duration,
      };
    },

    onEvent(event) {
      const pending = [...reloading];
      void ready()
        .then(() => Promise.all(pending))
        .then(() => {
          for (const target of targets.values()) {
            if (!target.enabled || (target.events !== null && !target.events.has(event.type))) continue;
            const job = newJob(target, event.type, event.id, event.ts, event.data);
            if (!job) continue;
            const row = pendingRow(job, job.createdAt);
            // While the hub stops, a new delivery is only kept: the next start sends it.
            if (!closing) held.set(job.deliveryId, job.webhookId);
            if (closing || queue.enqueue(job))
              persist(job, () => insertPending(db, row), 'keeping a pending delivery');
          }
        });
    },

    start() {
      void ready();
      if (!cluster.shared) return;
      claimTimer = setInterval(
        () => {
          track(keepClaims(), 'keeping webhook delivery claims');
        },
        Math.max(1, Math.floor(options.claimTtlMs / 3)),
      );
      claimTimer.unref();
    },

    async onNodeGone() {
      if (closing) return;
      await ready();
      await takeOver();
    },

    reloadWebhook(id) {
      const work = reload(id);
      const settled = work.catch(() => undefined);
      reloading.add(settled);
      void settled.finally(() => reloading.delete(settled));
      return work;
    },

    async close() {
      closing = true;
      if (claimTimer) clearInterval(claimTimer);
      await restored;
      await queue.close();
      // Retries waiting, and attempts cut short, are already in their rows; what is being written lands.
      while (writing.size > 0) await Promise.allSettled([...writing]);
      // Handed back, so the next process to start (or sweep) sends them at once.
      if (cluster.shared) await releaseClaims(db, cluster.nodeId);
    },
  };
}
