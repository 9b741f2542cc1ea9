/**
 * The event bus: services publish `{id, type, ts, data}` after their transaction commits; the event feed and
 * webhooks subscribe. An interface, so a NATS-backed bus can replace the in-process one without touching a
 * publisher. Best effort by design (spec section 6): a subscriber that throws is logged and skipped, never
 * blocks others.
 */
import { eventPayloads, newId, type EventEnvelope, type EventPayload, type EventType } from '@svc/protocol';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Clock } from './clock.js';

export type HubEvent<T extends EventType = EventType> = EventEnvelope<T>;

type EventListener<T extends EventType = EventType> = (event: HubEvent<T>) => void;

interface EventFilter<T extends EventType> {
  /** Only these types reach the listener; all types when absent. */
  types?: readonly T[];
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

interface Subscription {
  listener: EventListener;
  types: ReadonlySet<EventType> | null;
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

export function createInProcessEventBus(options: InProcessEventBusOptions): EventBus {
  const { clock } = options;
  const onListenerError = options.onListenerError ?? (() => undefined);
  const subscriptions = new Set<Subscription>();
  const checkers = new Map<EventType, Checker>();

  function check(type: EventType, data: unknown): void {
    let checker = checkers.get(type);
    if (!checker) {
      checker = compileChecker(eventPayloads[type]);
      checkers.set(type, checker);
    }
    const problem = checker(data);
    if (problem !== null) throw new Error(`event ${type}: payload ${problem}`);
  }

  return {
    publish(type, data) {
      if (options.validate === true) check(type, data);
      const event = { id: newId('event'), type, ts: clock.now().toISOString(), data } as HubEvent<
        typeof type
      >;
      for (const subscription of subscriptions) {
        if (subscription.types && !subscription.types.has(type)) continue;
        try {
          subscription.listener(event as HubEvent);
        } catch (error) {
          onListenerError(error);
        }
      }
      return event;
    },

    subscribe(listener, filter) {
      const subscription: Subscription = {
        // The filter below guarantees the listener only meets the types it asked for.
        listener: listener as EventListener,
        types: filter?.types ? new Set<EventType>(filter.types) : null,
      };
      subscriptions.add(subscription);
      return () => {
        subscriptions.delete(subscription);
      };
    },

    close() {
      subscriptions.clear();
    },
  };
}
