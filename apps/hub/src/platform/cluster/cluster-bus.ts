/**
 * What hub processes say to each other (ARCHITECTURE.md section 5, decision 0038). One interface, three
 * implementations: the embedded default (`createLocalClusterBus`: a cluster of one, where nothing crosses a
 * process), NATS (`nats-bus.ts`, when `SVC_NATS_URL` is set), and an in-memory network of several buses for
 * tests (`createMemoryClusterNetwork`). Code above it (the cluster gateway, the cluster event bus, cache
 * invalidation) is the same for all three.
 *
 * Subjects are dot-separated tokens without wildcards, under `svc.` (the NATS implementation may prefix them
 * with a cluster name). Payloads are JSON values; bytes travel base64-encoded. Over NATS every message is
 * signed by its sender (decision 0042); still, every value received from another process is untrusted input
 * to the code that receives it: it is validated there, like an agent's.
 */
import { randomBytes } from 'node:crypto';

export interface ClusterRequestOptions {
  timeoutMs: number;
}

export interface ClusterRespondOptions {
  /** Only one process of the queue group answers each request (NATS queue groups); all answer when absent. */
  queue?: string;
}

/** The message's sender, and how the handler may answer a request. */
export interface ClusterMessageMeta {
  /** The node id of the process that published it. */
  from: string;
}

export type ClusterHandler = (data: unknown, meta: ClusterMessageMeta) => void;
export type ClusterResponder = (data: unknown, meta: ClusterMessageMeta) => Promise<unknown>;

/** No process answered a request on the subject (NATS "no responders"): the target is gone. */
export class ClusterNoResponderError extends Error {
  constructor(readonly subject: string) {
    super(`no hub process answers ${subject}`);
    this.name = 'ClusterNoResponderError';
  }
}

/** A request got no answer in time. */
export class ClusterTimeoutError extends Error {
  constructor(readonly subject: string) {
    super(`no answer on ${subject} in time`);
    this.name = 'ClusterTimeoutError';
  }
}

/** The responder threw: its message travels back (never a stack). */
export class ClusterRemoteError extends Error {
  constructor(
    readonly subject: string,
    message: string,
  ) {
    super(message);
    this.name = 'ClusterRemoteError';
  }
}

/** The bus cannot reach its server now (NATS down): messages are not delivered, requests fail at once. */
export class ClusterUnavailableError extends Error {
  constructor(reason: string) {
    super(`the cluster bus is unavailable: ${reason}`);
    this.name = 'ClusterUnavailableError';
  }
}

export interface ClusterBusStatus {
  /** True when messages reach the other processes now (always true for a cluster of one). */
  connected: boolean;
  /** What is wrong when not connected, for /readyz and logs. */
  reason: string | null;
}

export interface ClusterBus {
  /** This process's id in the cluster: random per start, so a restarted process is a new node. */
  readonly nodeId: string;
  /** False for the embedded cluster of one: callers may skip work that only other processes need. */
  readonly shared: boolean;
  /** Sends to every other process subscribed to the subject (never back to this one). Best effort. */
  publish(subject: string, data: unknown): void;
  /** Receives what other processes publish on the subject. Returns the unsubscribe. */
  subscribe(subject: string, handler: ClusterHandler): () => void;
  /**
   * Asks a process that responds on the subject and resolves with its answer. Rejects with
   * ClusterNoResponderError, ClusterTimeoutError, ClusterRemoteError or ClusterUnavailableError. Requests and
   * answers may be larger than one NATS message: the implementation splits and joins them (so a large request
   * must not go to a subject answered by a queue group, whose members could each get some of its parts).
   */
  request(subject: string, data: unknown, options: ClusterRequestOptions): Promise<unknown>;
  /** Answers requests on the subject, from other processes only. Returns the unsubscribe. */
  respond(subject: string, responder: ClusterResponder, options?: ClusterRespondOptions): () => void;
  status(): ClusterBusStatus;
  /**
   * Calls `listener` each time the bus is connected again after being down (not on the first connection).
   * Subscriptions and responders are back by then; what was published meanwhile is lost, so state kept from
   * other processes' messages is to be asked for again. Returns the unsubscribe.
   */
  onReconnected(listener: () => void): () => void;
  /** Unsubscribes everything and closes the connection (after draining what is in flight). */
  close(): Promise<void>;
}

/** Listeners of a bus's reconnection; one that throws is logged by the caller's `report` and skipped. */
export function createReconnectListeners(report: (error: unknown) => void) {
  const listeners = new Set<() => void>();
  return {
    add(listener: () => void): () => void {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    fire(): void {
      for (const listener of [...listeners]) {
        try {
          listener();
        } catch (error) {
          report(error);
        }
      }
    },
    clear(): void {
      listeners.clear();
    },
  };
}

/** A node id: `node_` and 16 random hex digits. */
export function newNodeId(): string {
  return `node_${randomBytes(8).toString('hex')}`;
}

/** The embedded default: a cluster of one process, where nothing is sent and no other process answers. */
export function createLocalClusterBus(nodeId = newNodeId()): ClusterBus {
  return {
    nodeId,
    shared: false,
    publish() {
      // No other process.
    },
    subscribe() {
      return () => undefined;
    },
    request(subject) {
      return Promise.reject(new ClusterNoResponderError(subject));
    },
    respond() {
      return () => undefined;
    },
    status() {
      return { connected: true, reason: null };
    },
    onReconnected() {
      // Never down.
      return () => undefined;
    },
    close() {
      return Promise.resolve();
    },
  };
}

interface MemoryEndpoint {
  nodeId: string;
  reconnected: ReturnType<typeof createReconnectListeners>;
  handlers: Map<string, Set<ClusterHandler>>;
  responders: Map<string, Set<{ responder: ClusterResponder; queue: string | undefined }>>;
  down: boolean;
}

export interface MemoryClusterNetwork {
  /** A bus for one more process on this network. */
  join(nodeId?: string): ClusterBus;
  /** Simulates the bus server going away (true) and coming back (false) for every bus on the network. */
  setDown(down: boolean): void;
}

/**
 * Several buses in one process that reach each other as NATS would: publishes go to every other bus,
 * requests to one responder (one per queue group), JSON round-trips on the way so nothing is shared by
 * reference. Delivery is asynchronous (a microtask later), as over a network.
 */
export function createMemoryClusterNetwork(): MemoryClusterNetwork {
  const endpoints = new Set<MemoryEndpoint>();
  let down = false;
  const copy = (value: unknown): unknown =>
    value === undefined ? undefined : JSON.parse(JSON.stringify(value));

  return {
    setDown(value) {
      const was = down;
      down = value;
      if (was && !value) for (const endpoint of [...endpoints]) endpoint.reconnected.fire();
    },
    join(nodeId = newNodeId()) {
      const self: MemoryEndpoint = {
        nodeId,
        reconnected: createReconnectListeners(() => undefined),
        handlers: new Map(),
        responders: new Map(),
        down: false,
      };
      endpoints.add(self);
      const others = () => [...endpoints].filter((e) => e !== self);
      const unavailable = () => down || self.down;

      const bus: ClusterBus = {
        nodeId,
        shared: true,
        publish(subject, data) {
          if (unavailable()) return;
          const payload = copy(data);
          for (const endpoint of others()) {
            for (const handler of endpoint.handlers.get(subject) ?? []) {
              queueMicrotask(() => {
                handler(copy(payload), { from: nodeId });
              });
            }
          }
        },
        subscribe(subject, handler) {
          let set = self.handlers.get(subject);
          if (!set) self.handlers.set(subject, (set = new Set()));
          set.add(handler);
          return () => {
            set.delete(handler);
          };
        },
        async request(subject, data, options) {
          if (unavailable()) throw new ClusterUnavailableError('disconnected');
          const candidates = others().flatMap((e) => [...(e.responders.get(subject) ?? [])]);
          if (candidates.length === 0) throw new ClusterNoResponderError(subject);
          // One per queue group, and every responder without one, as NATS does; the first answer wins.
          const seenQueues = new Set<string>();
          const chosen = candidates.filter((c) => {
            if (c.queue === undefined) return true;
            if (seenQueues.has(c.queue)) return false;
            seenQueues.add(c.queue);
            return true;
          });
          const payload = copy(data);
          let timer: NodeJS.Timeout | undefined;
          const timeout = new Promise<never>((_, reject) => {
            timer = setTimeout(() => {
              reject(new ClusterTimeoutError(subject));
            }, options.timeoutMs);
          });
          try {
            return await Promise.race([
              Promise.any(
                chosen.map(async (c) => copy(await c.responder(copy(payload), { from: nodeId }))),
              ).catch((error: unknown) => {
                const first = error instanceof AggregateError ? (error.errors[0] as unknown) : error;
                throw new ClusterRemoteError(subject, first instanceof Error ? first.message : String(first));
              }),
              timeout,
            ]);
          } finally {
            clearTimeout(timer);
          }
        },
        respond(subject, responder, options) {
          let set = self.responders.get(subject);
          if (!set) self.responders.set(subject, (set = new Set()));
          const entry = { responder, queue: options?.queue };
          set.add(entry);
          return () => {
            set.delete(entry);
          };
        },
        status() {
          return unavailable()
            ? { connected: false, reason: 'disconnected' }
            : { connected: true, reason: null };
        },
        onReconnected(listener) {
          return self.reconnected.add(listener);
        },
        close() {
          endpoints.delete(self);
          self.reconnected.clear();
          self.handlers.clear();
          self.responders.clear();
          return Promise.resolve();
        },
      };
      return bus;
    },
  };
}
