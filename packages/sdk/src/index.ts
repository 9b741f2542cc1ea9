/**
 * @svc/sdk: a typed client for the hub's REST interface, built from the same route contracts the hub serves.
 * Works with any fetch (browsers, Node, or a test transport over app.inject).
 */
import { routes } from '@svc/protocol';
import { createRouteClient, type ClientOptions } from './client.js';

export * from './client.js';

/** A client of every route in the inventory (`routes` of @svc/protocol). */
export function createClient(options: ClientOptions) {
  return createRouteClient(options, (name) => routes[name]);
}

export type SvcClient = ReturnType<typeof createClient>;

export {
  eventStreamUrl,
  subscribeEvents,
  type EventStreamStatus,
  type EventSubscription,
  type EventSubscriptionOptions,
  type WebSocketLike,
} from './events.js';
