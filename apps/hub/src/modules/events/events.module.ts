import type { CredentialLifetime } from '../../http/credential-lifetime.js';
import type { EventBus } from '../../platform/event-bus.js';
import { defineModule } from '../module.js';
import { createEventStreamServer, type EventStreamLimits } from './event-stream.js';
import { eventsRawRoutes, eventsUpgrades } from './events.routes.js';

export type { EventStreamLimits, EventStreamServer } from './event-stream.js';

/**
 * The live event feed: `GET /api/v2/events/stream` (WebSocket), fed by the event bus, filtered per caller,
 * closed when the caller's credential ends. docs/decisions/0015-events.md.
 */
export function createEventsModule(deps: {
  events: EventBus;
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>;
  limits?: Partial<EventStreamLimits>;
}) {
  const stream = createEventStreamServer({
    events: deps.events,
    credentials: deps.credentials,
    ...(deps.limits ? { limits: deps.limits } : {}),
  });
  return defineModule({
    name: 'events',
    services: { stream },
    rawHandlers: eventsRawRoutes(),
    upgrades: eventsUpgrades(stream),
    start() {
      stream.start();
    },
    async close() {
      stream.close();
      await Promise.resolve();
    },
  });
}
