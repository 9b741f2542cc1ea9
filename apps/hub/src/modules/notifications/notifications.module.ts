import { notifiableEventTypes, type NotificationSeverity } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule, subscriber } from '../module.js';
import { notificationRoutes } from './notifications.routes.js';
import { createNotificationService } from './notifications.service.js';
import { createPushService } from './push.service.js';

/** What goes to the mobile app's devices: fired alerts (in digests) and incidents (its persistent notifications). */
const pushEventTypes = ['alert.fired', 'incident.created', 'incident.updated', 'incident.resolved'] as const;

/** Notifications: alert events routed to channels (webhook, email, ntfy, Slack, Discord) and to devices (Web Push). */
export function createNotificationsModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  box: SecretBox;
  outbound: LiveOutbound;
  logger: Logger;
  minSeverity: () => NotificationSeverity;
  /** The users disabled now (the users module): their devices get no push (decision 0087, addendum). */
  disabledUsers: () => Promise<ReadonlySet<string>>;
  dependents?: (assetId: string) => Promise<{ total: number; direct: number }>;
}) {
  const notifications = createNotificationService(deps);
  const push = createPushService(deps);
  return defineModule({
    name: 'notifications',
    services: { notifications, push },
    handlers: notificationRoutes(notifications, push),
    subscribers: [
      subscriber(notifiableEventTypes, (event) => {
        notifications.onAlert(event);
      }),
      subscriber(pushEventTypes, (event) => {
        push.onEvent(event);
      }),
    ],
    close: async () => {
      await push.close();
      await notifications.close();
    },
  });
}
