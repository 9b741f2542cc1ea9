/**
 * In-process event bus: services publish `{id, type, ts, data}`; the event feed and webhooks subscribe.
 * Best effort by design (spec section 6): a subscriber that throws is logged and skipped, never blocks others.
 */
import { newId, type EventType } from '@svc/protocol';
import type { Clock } from './clock.js';

export interface HubEvent {
  id: string;
  type: EventType;
  ts: string;
  /** The asset the event is about, for filtering by allowed assets; null for fleet-wide events. */
  assetId: string | null;
  data: Record<string, unknown>;
}

export type EventListener = (event: HubEvent) => void;

export class EventBus {
  private readonly listeners = new Set<EventListener>();

  constructor(
    private readonly clock: Clock,
    private readonly onListenerError: (error: unknown) => void = () => undefined,
  ) {}

  publish(type: EventType, data: Record<string, unknown>, assetId: string | null = null): HubEvent {
    const event: HubEvent = { id: newId('event'), type, ts: this.clock.now().toISOString(), assetId, data };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.onListenerError(error);
      }
    }
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
