/**
 * The event bus: services publish `{id, type, ts, data}` after their transaction commits; the event feed and
 * webhooks subscribe. Best effort by design (spec section 6): a subscriber that throws is logged and skipped,
 * never blocks others.
 *
 * Several hub processes (decision 0038): each event is delivered here at once and sent over the cluster bus
 * (`svc.events`) to the others. A subscriber says how far it reaches: `origin` (the default) hears only the
 * events this process published, so work done once per event (webhooks, notifications, purges) runs once
 * across the cluster, on the process that published; `cluster` hears every process's events, for what each
 * process keeps for itself (event streams, caches, open connections to close).
 */
import {
  eventPayloads,
  eventTypes,
  newId,
  type EventEnvelope,
  type EventPayload,
  type EventType,
} from '@svc/protocol';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Clock } from './clock.js';
import type { ClusterBus } from './cluster/cluster-bus.js';

export type HubEvent<T extends EventType = EventType> = EventEnvelope<T>;

type EventListener<T extends EventType = EventType> = (event: HubEvent<T>) => void;

/** `origin`: events this process published; `cluster`: every process's (see the top of this file). */
export type EventReach = 'origin' | 'cluster';

interface EventFilter<T extends EventType> {
  /** Only these types reach the listener; all types when absent. */
  types?: readonly T[];
  /** `origin` when absent. */
  reach?: EventReach;
}

export interface EventBus {
  publish<T extends EventType>(type: T, data: EventPayload<T>): HubEvent<T>;
  subscribe<T extends EventType = EventType>(listener: EventListener<T>, filter?: EventFilter<T>): () => void;
  /** Drops every subscriber; a publish after close reaches no one. */
  close(): void;
}

export interface InProcessEventBusOptions {
  clock: Clock;
  onListenerError?: (error: unknown) => void;
  /**
   * Check every payload against its schema in protocol and throw on a mismatch. The test harness turns it on,
   * so a publisher drifting from the catalog fails the test that drove it; the compiler checks the shape too.
   */
  validate?: boolean;
}

export interface ClusterEventBusOptions extends InProcessEventBusOptions {
  bus: ClusterBus;
  /** Told of each event from another process dropped as invalid (for the hub's counter). */
  onDropped?: (reason: string) => void;
}

/** The cluster bus subject events travel on. */
export const clusterEventsSubject = 'svc.events';

interface Subscription {
  listener: EventListener;
  types: ReadonlySet<EventType> | null;
  reach: EventReach;
}

type Checker = (value: unknown) => string | null;

interface Validator {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<{ instancePath: string; message: string }>;
}

function compileChecker(schema: TSchema): Checker {
  const validator: Validator = Compile(schema);
  return (value) => {
    if (validator.Check(value)) return null;
    const [first] = validator.Errors(value);
    return first ? `${first.instancePath || '/'} ${first.message}` : 'does not match its schema';
  };
}

const knownTypes: ReadonlySet<string> = new Set(eventTypes);
const maxEventIdChars = 100;

/** A single process's bus: every subscriber hears every event, whatever its reach. */
export function createInProcessEventBus(options: InProcessEventBusOptions): EventBus {
  return createEventBus(options, null, () => undefined);
}

/** The bus of one process in a cluster: local delivery at once, and the others' events from the cluster bus. */
export function createClusterEventBus(options: ClusterEventBusOptions): EventBus {
  return createEventBus(options, options.bus, options.onDropped ?? (() => undefined));
}

function createEventBus(
  options: InProcessEventBusOptions,
  cluster: ClusterBus | null,
  onDropped: (reason: string) => void,
): EventBus {
  const { clock } = options;
  const onListenerError = options.onListenerError ?? (() => undefined);
  const subscriptions = new Set<Subscription>();
  const checkers = new Map<EventType, Checker>();

  function checkerFor(type: EventType): Checker {
    let checker = checkers.get(type);
    if (!checker) {
      checker = compileChecker(eventPayloads[type]);
      checkers.set(type, checker);
    }
    return checker;
  }

  function check(type: EventType, data: unknown): void {
    const problem = checkerFor(type)(data);
    if (problem !== null) throw new Error(`event ${type}: payload ${problem}`);
  }

  function deliver(event: HubEvent, remote: boolean): void {
    for (const subscription of subscriptions) {
      if (remote && subscription.reach !== 'cluster') continue;
      if (subscription.types && !subscription.types.has(event.type)) continue;
      try {
        subscription.listener(event);
      } catch (error) {
        onListenerError(error);
      }
    }
  }

  /** Another process's event, untrusted: the envelope and its payload checked against protocol's catalog. */
  function readRemote(value: unknown): HubEvent | null {
    if (typeof value !== 'object' || value === null) return null;
    const { id, type, ts, data } = value as Record<string, unknown>;
    if (typeof id !== 'string' || id.length === 0 || id.length > maxEventIdChars) return null;
    if (typeof type !== 'string' || !knownTypes.has(type)) return null;
    if (typeof ts !== 'string' || Number.isNaN(Date.parse(ts))) return null;
    if (checkerFor(type as EventType)(data) !== null) return null;
    return { id, type, ts, data } as HubEvent;
  }

  const stopListening = cluster?.subscribe(clusterEventsSubject, (value) => {
    const event = readRemote(value);
    if (event) deliver(event, true);
    else onDropped('event');
  });

  return {
    publish(type, data) {
      if (options.validate === true) check(type, data);
      const event = { id: newId('event'), type, ts: clock.now().toISOString(), data } as HubEvent<
        typeof type
      >;
      deliver(event as HubEvent, false);
      cluster?.publish(clusterEventsSubject, event);
      return event;
    },

    subscribe(listener, filter) {
      const subscription: Subscription = {
        // The filter below guarantees the listener only meets the types it asked for.
        listener: listener as EventListener,
        types: filter?.types ? new Set<EventType>(filter.types) : null,
        reach: filter?.reach ?? 'origin',
      };
      subscriptions.add(subscription);
      return () => {
        subscriptions.delete(subscription);
      };
    },

    close() {
      stopListening?.();
      subscriptions.clear();
    },
  };
}
