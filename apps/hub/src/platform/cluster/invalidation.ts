/**
 * Cache invalidation between hub processes (decision 0040): a process that changed something another process
 * may hold in memory (a verified API key, the runtime settings, a webhook's target) says so by topic and key;
 * every other process drops or reloads what it holds. Invalidations are coalesced: those of one `flushMs`
 * window (50 ms by default) travel in one message, each key once, and a topic with more than `maxKeys` keys in a
 * window is sent as `*` (everything of the topic).
 *
 * The bus is best effort: a message lost (NATS down) is covered by each cache's own bound (the key cache's
 * 5 s, the settings' periodic reload), and when the bus reconnects every topic is dropped whole (`*`) here, as
 * what other processes changed meanwhile never arrived. A cluster of one sends nothing.
 */
import type { ClusterBus } from './cluster-bus.js';

const invalidationSubject = 'svc.cache.invalidate';
/** The key meaning "everything of the topic". */
export const allKeys = '*';

type InvalidationHandler = (key: string) => void;

export interface CacheInvalidation {
  /** Tells the other processes that `key` of `topic` changed. */
  invalidate(topic: string, key: string): void;
  /** Called for each key of the topic that another process invalidated (`*`: all of them). */
  on(topic: string, handler: InvalidationHandler): () => void;
  /** Sends what is waiting now (tests; close). */
  flush(): void;
  close(): void;
}

export interface CacheInvalidationOptions {
  bus: ClusterBus;
  flushMs?: number;
  maxKeys?: number;
  onError?: (error: unknown) => void;
}

const maxTopicLength = 64;
const maxKeyLength = 256;
const maxTopics = 64;

/** Reads another process's message `{ t: { topic: [key, …] } }`, keeping only well-formed, bounded parts. */
function parse(data: unknown, maxKeys: number): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (typeof data !== 'object' || data === null) return out;
  const topics = (data as { t?: unknown }).t;
  if (typeof topics !== 'object' || topics === null || Array.isArray(topics)) return out;
  for (const [topic, keys] of Object.entries(topics).slice(0, maxTopics)) {
    if (topic.length > maxTopicLength || !Array.isArray(keys)) continue;
    const valid = keys
      .slice(0, maxKeys)
      .filter((k): k is string => typeof k === 'string' && k.length <= maxKeyLength);
    if (valid.length > 0) out.set(topic, valid);
  }
  return out;
}

export function createCacheInvalidation(options: CacheInvalidationOptions): CacheInvalidation {
  const { bus } = options;
  const flushMs = options.flushMs ?? 50;
  const maxKeys = options.maxKeys ?? 500;
  const handlers = new Map<string, Set<InvalidationHandler>>();
  const waiting = new Map<string, Set<string>>();
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  function deliver(topic: string, keys: readonly string[]): void {
    for (const handler of handlers.get(topic) ?? []) {
      for (const key of keys) {
        try {
          handler(key);
        } catch (error) {
          options.onError?.(error);
        }
      }
    }
  }

  const unsubscribes = bus.shared
    ? [
        bus.subscribe(invalidationSubject, (data) => {
          for (const [topic, keys] of parse(data, maxKeys)) deliver(topic, keys);
        }),
        bus.onReconnected(() => {
          for (const topic of [...handlers.keys()]) deliver(topic, [allKeys]);
        }),
      ]
    : [];

  function flush(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (waiting.size === 0) return;
    const t: Record<string, string[]> = {};
    for (const [topic, keys] of waiting) t[topic] = [...keys];
    waiting.clear();
    bus.publish(invalidationSubject, { t });
  }

  return {
    invalidate(topic, key) {
      if (!bus.shared || closed) return;
      let keys = waiting.get(topic);
      if (!keys) waiting.set(topic, (keys = new Set()));
      if (keys.has(allKeys)) return;
      if (keys.size >= maxKeys || key === allKeys) {
        keys.clear();
        keys.add(allKeys);
      } else {
        keys.add(key);
      }
      if (flushMs <= 0) flush();
      else timer ??= setTimeout(flush, flushMs);
    },
    on(topic, handler) {
      let set = handlers.get(topic);
      if (!set) handlers.set(topic, (set = new Set()));
      set.add(handler);
      return () => {
        set.delete(handler);
      };
    },
    flush,
    close() {
      flush();
      closed = true;
      for (const unsubscribe of unsubscribes) unsubscribe();
      handlers.clear();
    },
  };
}
