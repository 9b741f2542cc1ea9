/** The live event feed: a WebSocket of `{id, type, ts, data}` messages, filtered by type and by asset. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { eventTypes, type EventType } from '../events.js';

/** `types=` is a comma-separated list of event types; longer than every type named once is refused. */
const typesMaxLength = eventTypes.join(',').length;

export const EventStreamQuery = Type.Object(
  {
    types: Type.Optional(
      Type.String({
        maxLength: typesMaxLength,
        description: 'Comma-separated event types (all when absent); an unknown type is refused with 400.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EventStreamQuery = Static<typeof EventStreamQuery>;

/**
 * How the hub closes a stream, beyond the standard codes (1001 hub shutting down, 1009 an inbound frame over
 * `eventStreamLimits.inboundFrameBytes`). docs/decisions/0015-events.md explains each.
 */
export const eventStreamCloseCodes = {
  /** The key was revoked or expired, or the session signed out or expired. */
  credentialEnded: 4001,
  /**
   * The key changed and no longer grants the stream (it lost `events:subscribe`); the reason says what it
   * lacks. A key that keeps it but loses assets stays connected, its filter narrowed at once.
   */
  accessWithdrawn: 4403,
  /** The client read too slowly: its queue filled and it was dropped. Reconnect and reconcile. */
  slowClient: 4008,
} as const;

export const eventStreamLimits = {
  /** Messages waiting for one client before it is dropped as slow. */
  queuedMessages: 512,
  /** Bytes waiting in one client's socket before it is dropped as slow. */
  queuedBytes: 1024 * 1024,
  /** A client sends nothing but control frames; any frame over this closes the stream (1009). */
  inboundFrameBytes: 4096,
  /** Ping interval; a client that has not answered the previous ping is dropped. */
  pingIntervalMs: 30_000,
} as const;

/**
 * The types a `types=` value names, or the first unknown one. Empty items are ignored; an empty or absent
 * value means every type.
 */
export function parseEventTypes(
  value: string | undefined,
): { ok: true; types: EventType[] | null } | { ok: false; unknown: string } {
  if (value === undefined) return { ok: true, types: null };
  const known = new Set<string>(eventTypes);
  const types = new Set<EventType>();
  for (const item of value.split(',').map((part) => part.trim())) {
    if (item === '') continue;
    if (!known.has(item)) return { ok: false, unknown: item };
    types.add(item as EventType);
  }
  return { ok: true, types: types.size === 0 ? null : [...types] };
}

export const eventsContracts = {
  'events.stream': defineRoute({
    name: 'events.stream',
    surface: 'v2',
    method: 'GET',
    path: '/events/stream',
    auth: 'scope',
    scope: 'events:subscribe',
    summary: 'WebSocket event feed: {id, type, ts, data} messages about the assets the caller may see',
    description:
      'Connect with a WebSocket upgrade and a bearer key (scope events:subscribe) or the console session ' +
      'cookie with a same-origin Origin. Each text message is one event {id, type, ts, data}. ' +
      '`types=` filters by type. A client that reads too slowly is closed with 4008; the stream closes with ' +
      '4001 when its key is revoked or expires or its session ends, and with 4403 when its key is changed to ' +
      'lack events:subscribe (a key changed to fewer allowed_assets stays connected and at once receives ' +
      'only events about the assets it keeps). A plain request without the upgrade ' +
      'is refused with 400.',
    query: EventStreamQuery,
    raw: true,
    upgrade: true,
  }),
} satisfies Record<string, RouteContract>;
