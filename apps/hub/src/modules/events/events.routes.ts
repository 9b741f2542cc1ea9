import type { IncomingMessage } from 'node:http';
import { parseEventTypes, type EventType } from '@svc/protocol';
import { sendError } from '../../http/envelope.js';
import type { RawHandlers } from '../../http/register-routes.js';
import { refuseUpgrade, type UpgradeHandlers } from '../../http/upgrade.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { EventStreamServer } from './event-stream.js';

/** `types=` longer than this is refused (every type named once fits well within it). */
const typesMaxLength = 2048;

/**
 * The stream's query, read from the upgrade request (which never reaches Fastify's validation): `types=` only,
 * each item a known event type. Throws 400 naming the field.
 */
function streamTypesOf(request: IncomingMessage): EventType[] | null {
  const query = new URL(request.url ?? '/', 'http://hub.invalid').searchParams;
  for (const name of query.keys()) {
    if (name !== 'types') throw validationError(name, 'is not a parameter of the event stream');
  }
  const values = query.getAll('types');
  if (values.length === 0) return null;
  const joined = values.join(',');
  if (joined.length > typesMaxLength)
    throw validationError('types', `longer than ${typesMaxLength} characters`);
  const parsed = parseEventTypes(joined);
  if (!parsed.ok) throw validationError('types', `unknown event type "${parsed.unknown.slice(0, 64)}"`);
  return parsed.types;
}

export function eventsUpgrades(stream: EventStreamServer) {
  return {
    'events.stream': (principal, request, socket, head, recheck) => {
      let types: EventType[] | null;
      try {
        types = streamTypesOf(request);
      } catch (error) {
        refuseUpgrade(socket, error instanceof HubError ? error : new HubError('validation'));
        return;
      }
      stream.accept(principal, types, request, socket, head, recheck);
    },
  } satisfies UpgradeHandlers;
}

/** `GET /api/v2/events/stream` without the upgrade (after the guard and query validation): 400, how to connect. */
export function eventsRawRoutes() {
  return {
    'events.stream': async (request, reply) =>
      sendError(
        request,
        reply,
        new HubError('validation', 'This is the event stream: connect with an Upgrade: websocket request.'),
      ),
  } satisfies RawHandlers;
}
