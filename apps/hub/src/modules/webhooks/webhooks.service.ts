import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import type {
  Webhook,
  WebhookCreate,
  WebhookCreated,
  WebhookReplace,
  WebhookTestResult,
  WebhookUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Page, PageRequest } from '../../platform/db/paging.js';
import type { HubEvent } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AuditService } from '../audit/audit.service.js';
import type { CacheInvalidation } from '../../platform/cluster/invalidation.js';
import { alwaysHeldLease } from '../../platform/cluster/node-registry.js';
import { createWebhookClaims, type WebhookCluster } from './webhook-claims.js';
import { createWebhookDeliveries } from './webhook-deliveries.js';
import { createWebhookTargets } from './webhook-targets.js';
import { createWebhooksApi } from './webhooks-api.js';

export type { WebhookCluster } from './webhook-claims.js';

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

/** The invalidation topic of webhooks (a webhook id). */
export const webhookCacheTopic = 'webhooks';

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
  const { db, clock, logger } = deps;
  const options = { ...defaultDeliveryOptions, ...deps.delivery };
  const cluster: WebhookCluster = deps.cluster ?? {
    nodeId: 'node_local',
    shared: false,
    liveNodes: () => new Set(['node_local']),
  };
  /** Deliveries this process holds (queued, in flight or waiting for a retry): never taken over twice. */
  const held = new Map<string, string>();
  const claimExpiry = () => new Date(clock.now().getTime() + options.claimTtlMs).toISOString();
  let restored: Promise<void> | null = null;
  let closing = false;

  const targets = createWebhookTargets({
    db,
    box: deps.box,
    onForget: (webhookId) => {
      deliveries.queue.forget(webhookId);
      for (const [deliveryId, of] of held) if (of === webhookId) held.delete(deliveryId);
    },
  });
  const deliveries = createWebhookDeliveries({
    db,
    clock,
    outbound: deps.outbound,
    logger,
    telemetry: deps.telemetry,
    options,
    targets,
    held,
    nodeId: cluster.nodeId,
    claimExpiry,
  });
  const claims = createWebhookClaims({
    db,
    clock,
    cluster,
    lease: cluster.lease ?? alwaysHeldLease(),
    claimTtlMs: options.claimTtlMs,
    claimExpiry,
    held,
    queue: deliveries.queue,
    isClosing: () => closing,
  });

  /**
   * Tells the other processes at once, not after the invalidation window: an event caused on another process
   * right after this change is matched against the webhook as it is now.
   */
  function tellOthers(id: string): void {
    deps.invalidation?.invalidate(webhookCacheTopic, id);
    deps.invalidation?.flush();
  }

  /**
   * The webhooks loaded and what a stop left pending restored, once, before any new delivery is queued (by
   * start(), or by an event that comes first): a new delivery's row is never read back as one to restore.
   */
  function ready(): Promise<void> {
    restored ??= targets
      .ensureLoaded()
      .then(() => claims.takeOver())
      .then(() => undefined)
      .catch((error: unknown) => {
        targets.reset();
        restored = null;
        logger.error({ err: error }, 'webhooks: loading webhooks or pending deliveries failed');
      });
    return restored;
  }

  return {
    ...createWebhooksApi({
      db,
      clock,
      audit: deps.audit,
      box: deps.box,
      outbound: deps.outbound,
      telemetry: deps.telemetry,
      attemptTimeoutMs: options.attemptTimeoutMs,
      targets,
      deliveries,
      tellOthers,
    }),

    onEvent(event) {
      const pending = targets.pendingReloads();
      void ready()
        .then(() => Promise.all(pending))
        .then(() => {
          deliveries.queueEvent(event, closing);
        });
    },

    start() {
      void ready();
      claims.start((work, what) => {
        deliveries.track(work, what);
      });
    },

    async onNodeGone() {
      if (closing) return;
      await ready();
      await claims.takeOver();
    },

    reloadWebhook: (id) => targets.reload(id),

    async close() {
      closing = true;
      claims.stop();
      await restored;
      await deliveries.queue.close();
      // Retries waiting, and attempts cut short, are already in their rows; what is being written lands.
      await deliveries.settleWrites();
      // Handed back, so the next process to start (or sweep) sends them at once.
      await claims.release();
    },
  };
}
