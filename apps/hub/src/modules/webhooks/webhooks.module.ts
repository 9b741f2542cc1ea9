import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import { eventTypes } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import type { RetentionTask } from '../../platform/retention.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule, subscriber } from '../module.js';
import { deleteDeliveriesBefore } from './webhooks.repository.js';
import { webhookRoutes } from './webhooks.routes.js';
import {
  createWebhookService,
  webhookCacheTopic,
  type WebhookCluster,
  type WebhookDeliveryOptions,
} from './webhooks.service.js';
import type { CacheInvalidation } from '../../platform/cluster/invalidation.js';

/**
 * Webhooks: every event of the catalog, filtered per webhook, signed and delivered through the egress guard.
 * Finished delivery records older than `retention.webhook_deliveries_days` (read at each run) are purged in
 * batches.
 */
export function createWebhooksModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  outbound: LiveOutbound;
  logger: Logger;
  delivery?: Partial<WebhookDeliveryOptions>;
  retentionDays: () => number;
  telemetry?: Pick<Telemetry, 'webhookDelivery'>;
  cluster?: WebhookCluster;
  invalidation?: CacheInvalidation;
}) {
  const webhooks = createWebhookService(deps);
  // A webhook changed on another process: its target here is read again (removed ones stop at once).
  const stopReloads = deps.invalidation?.on(webhookCacheTopic, (id) => {
    webhooks.reloadWebhook(id).catch((error: unknown) => {
      deps.logger.error({ err: error, webhook: id }, 'webhooks: reloading a changed webhook failed');
    });
  });
  const retention: RetentionTask = {
    name: 'webhook_deliveries',
    days: deps.retentionDays,
    purgeBatch: (cutoff, limit) => deleteDeliveriesBefore(deps.db, cutoff, limit),
  };
  return defineModule({
    name: 'webhooks',
    services: { webhooks },
    handlers: webhookRoutes(webhooks),
    subscribers: [
      subscriber(eventTypes, (event) => {
        webhooks.onEvent(event);
      }),
    ],
    start: () => {
      webhooks.start();
    },
    retention: [retention],
    close: () => {
      stopReloads?.();
      return webhooks.close();
    },
  });
}
