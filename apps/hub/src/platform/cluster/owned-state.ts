/**
 * One seam for state owned by one hub process (ARCHITECTURE.md section 5 rule 1, decision 0058): an agent's
 * connection, a terminal, a desktop. A kind of owned state is declared once (`defineOwnedKind`): its name,
 * its catalogue of requests (request and reply schemas) and notifies. Every process then has one
 * `OwnedStates`, which for each kind:
 * - builds the subjects, in one scheme: `svc.node.<owner>.<kind>.<verb>`;
 * - checks every value from another process against the catalogue (requests and notifies on receipt,
 *   replies on the caller), with compiled TypeBox checks;
 * - maps what the bus throws once (`ownedCallError`): no responders, or the owner gone while waiting, is the
 *   kind's "gone" error; the bus unavailable stays `ClusterUnavailableError`, never "gone";
 * - ends what depends on a node when it goes away (`hold`): told by the registry (one survivor, which tells
 *   the others on `svc.nodes.gone`), or found by one sweep of the nodes held against the registry.
 * Streams of any kind use the stream relay (agents/cluster-streams.ts) on the kind's `open` subject, each
 * stream held against its peer node here.
 */
import { Compile } from 'typebox/compile';
import { Type, type Static, type TSchema } from 'typebox';
import type { Logger } from '../logger.js';
import {
  ClusterNoResponderError,
  ClusterRemoteError,
  ClusterTimeoutError,
  ClusterUnavailableError,
  createLocalClusterBus,
  type ClusterBus,
  type ClusterMessageMeta,
} from './cluster-bus.js';
import { createSingleNodeRegistry, type NodeRegistry } from './node-registry.js';

/** One request of a kind's catalogue: what the caller sends and what the owner answers. */
interface OwnedRequestDef {
  request: TSchema;
  reply: TSchema;
}

export interface OwnedKindDef {
  /** A subject token: `[a-z]+`. */
  name: string;
  requests: Record<string, OwnedRequestDef>;
  notifies: Record<string, TSchema>;
}

type Check = ReturnType<typeof Compile>;

/** A declared kind: its definition and the compiled checks of its catalogue. */
export interface OwnedKind<D extends OwnedKindDef> {
  readonly def: D;
  readonly checks: {
    request: Record<keyof D['requests'], Check>;
    reply: Record<keyof D['requests'], Check>;
    notify: Record<keyof D['notifies'], Check>;
  };
}

type RequestOf<D extends OwnedKindDef, V extends keyof D['requests']> = Static<D['requests'][V]['request']>;
type ReplyOf<D extends OwnedKindDef, V extends keyof D['requests']> = Static<D['requests'][V]['reply']>;
type NotifyOf<D extends OwnedKindDef, N extends keyof D['notifies']> = Static<D['notifies'][N]>;

/** Ids on the wire: what every kind names its state by. */
export const WireId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' });
/** A reason or a message: cut to this many characters before it is sent. */
export const wireReasonLength = 200;
export const WireReason = Type.String({ maxLength: wireReasonLength });

const compileAll = <R extends Record<string, TSchema>>(schemas: R): Record<keyof R, Check> =>
  Object.fromEntries(Object.entries(schemas).map(([k, s]) => [k, Compile(s)])) as Record<keyof R, Check>;

/** Declares a kind once: its catalogue is compiled here, at import. */
export function defineOwnedKind<const D extends OwnedKindDef>(def: D): OwnedKind<D> {
  if (!/^[a-z]+$/.test(def.name)) throw new Error(`invalid owned kind name ${def.name}`);
  const requestSchemas = Object.fromEntries(Object.entries(def.requests).map(([k, r]) => [k, r.request]));
  const replySchemas = Object.fromEntries(Object.entries(def.requests).map(([k, r]) => [k, r.reply]));
  return {
    def,
    checks: {
      request: compileAll(requestSchemas) as Record<keyof D['requests'], Check>,
      reply: compileAll(replySchemas) as Record<keyof D['requests'], Check>,
      notify: compileAll(def.notifies) as Record<keyof D['notifies'], Check>,
    },
  };
}

/** The one subject scheme for state owned by one process. */
export const ownedSubject = (node: string, kind: string, verb: string): string =>
  `svc.node.${node}.${kind}.${verb}`;

/** A process that learned a node is gone tells the others (the registry tells only one). */
const nodeGoneSubject = 'svc.nodes.gone';
/**
 * A process that stalled past its lease and registered again under a new epoch asks each other process to take
 * its word again (decision 0053: its node id is the same) and waits, bounded, until they have asked it what it
 * holds: only then does it write its agents online, so no process answers "offline" for an agent shown online.
 */
const nodeBackSubject = (node: string) => `svc.node.${node}.nodes.back`;
const nodeBackTimeoutMs = 3_000;
/**
 * Said of a node gone (the epoch whose lease ran out) and by a node back (its new epoch). The epoch is optional
 * for a process of an earlier version, which sent the node alone: then it means the newest epoch known.
 */
const nodeEpochCheck = Compile(
  Type.Object(
    { node: WireId, epoch: Type.Optional(Type.Integer({ minimum: 0 })) },
    { additionalProperties: false },
  ),
);

/** What a kind's callers see instead of the bus's errors. */
export interface OwnedErrors {
  /** The owner is gone, or no process answers for it: the state went with it. */
  gone(): Error;
  timeout(): Error;
  /** The owner failed, or answered outside the catalogue. */
  failed(message: string): Error;
  /**
   * The bus cannot reach the other processes now. Absent: the `ClusterUnavailableError` itself, so callers
   * answer 503 `cluster_unavailable` rather than "gone".
   */
  unavailable?(error: ClusterUnavailableError): Error;
}

/** The one mapping of a failed call to another process onto the kind's errors; the kind's own pass through. */
export function ownedCallError(
  error: unknown,
  errors: OwnedErrors,
  own: readonly (abstract new (...args: never[]) => Error)[] = [],
): Error {
  if (error instanceof ClusterUnavailableError) return errors.unavailable?.(error) ?? error;
  if (error instanceof ClusterNoResponderError || error instanceof OwnerGoneError) return errors.gone();
  if (error instanceof ClusterTimeoutError) return errors.timeout();
  if (error instanceof ClusterRemoteError)
    return errors.failed(`the hub process that owns it failed: ${error.message}`);
  if (error instanceof InvalidReplyError) return errors.failed(error.message);
  if (error instanceof Error && own.some((type) => error instanceof type)) return error;
  // Anything else the bus throws (a message over its size limit…) fails this call, as a reply would.
  const message = error instanceof Error ? error.message : String(error);
  return errors.failed(`the cluster bus failed: ${message}`);
}

/** The owner of a pending call left the registry before answering. */
export class OwnerGoneError extends Error {
  constructor(readonly node: string) {
    super(`the hub process ${node} went away`);
    this.name = 'OwnerGoneError';
  }
}

/** An owner answered outside the kind's catalogue. */
export class InvalidReplyError extends Error {
  constructor(kind: string, verb: string) {
    super(`the hub process that owns the ${kind} answered ${verb} invalidly`);
    this.name = 'InvalidReplyError';
  }
}

interface OwnedCallOptions {
  timeoutMs: number;
}

/** One kind, as this process sees it: asks owners, answers as an owner, holds what ends with an owner. */
interface OwnedStateKind<D extends OwnedKindDef> {
  readonly name: string;
  subject(node: string, verb: string): string;
  /**
   * Asks the owner node. Rejects with `OwnerGoneError` when the owner leaves the registry meanwhile,
   * `InvalidReplyError` when its reply is outside the catalogue, or what the bus throws; callers map these
   * with `ownedCallError` once.
   */
  request<V extends keyof D['requests'] & string>(
    owner: string,
    verb: V,
    data: RequestOf<D, V>,
    options: OwnedCallOptions,
  ): Promise<ReplyOf<D, V>>;
  /** Tells the owner node something, best effort. */
  notify<N extends keyof D['notifies'] & string>(owner: string, verb: N, data: NotifyOf<D, N>): void;
  /** Answers the verb as an owner, from other processes only; a request outside the catalogue is refused. */
  answer<V extends keyof D['requests'] & string>(
    verb: V,
    handler: (data: RequestOf<D, V>, meta: ClusterMessageMeta) => Promise<ReplyOf<D, V>> | ReplyOf<D, V>,
  ): void;
  /** Takes the notify as an owner; one outside the catalogue is dropped. */
  on<N extends keyof D['notifies'] & string>(
    verb: N,
    handler: (data: NotifyOf<D, N>, meta: ClusterMessageMeta) => void,
  ): void;
}

export interface OwnedStates {
  readonly bus: ClusterBus;
  /** Which nodes are live: an owner named by a row is asked only while its lease holds. */
  readonly registry: Pick<NodeRegistry, 'isLive' | 'liveNodes'> & Partial<Pick<NodeRegistry, 'epochOf'>>;
  /** This process's view of one kind. */
  kind<D extends OwnedKindDef>(kind: OwnedKind<D>): OwnedStateKind<D>;
  /**
   * Ties something to a node's life: `onGone` runs once when the node goes away (then it is released).
   * Returns the release, for when it ends first.
   */
  hold(node: string, onGone: () => void): () => void;
  /** Runs on every process, once per node that goes (the registry, another process's word, or the sweep). */
  onNodeGone(listener: (node: string) => void): () => void;
  /** Runs on every other process when a node taken for gone registered again (decision 0053). */
  onNodeBack(listener: (node: string) => Promise<void> | void): () => void;
  isGone(node: string): boolean;
  /** Subscribes and starts the sweep (nothing for a cluster of one). */
  start(): void;
  close(): void;
}

const ownedDefaults = {
  /** How often the nodes held are checked against the registry. */
  sweepMs: 1_000,
  /** Departed node ids remembered (a late message from one is ignored). */
  goneKept: 10_000,
} as const;

export function createOwnedStates(deps: {
  bus: ClusterBus;
  registry: Pick<NodeRegistry, 'isLive' | 'liveNodes' | 'onNodeGone'> &
    Partial<Pick<NodeRegistry, 'onLeaseRegained' | 'epochOf'>>;
  logger: Logger;
  sweepMs?: number;
}): OwnedStates {
  const { bus, registry, logger } = deps;
  const sweepMs = deps.sweepMs ?? ownedDefaults.sweepMs;
  const held = new Map<string, Set<() => void>>();
  /**
   * Nodes the registry listed, with the epoch listed: one it no longer lists is gone (a new one may not be
   * listed yet). A listing of an epoch already taken for gone is stale (a renewal that read the lease before it
   * was removed) and does not count.
   */
  const listed = new Map<string, number>();
  /**
   * Nodes taken for gone, with the epoch that went (decision 0053). Only that epoch is gone: the node listed,
   * or saying it is back, under a newer one is back, whatever order the messages came in.
   */
  const gone = new Map<string, number>();
  /** The newest epoch each node said it is back under: a word of its going under an older one is stale. */
  const backUnder = new Map<string, number>();
  const listeners = new Set<(node: string) => void>();
  const backListeners = new Set<(node: string) => Promise<void> | void>();
  /**
   * Live processes not yet told that this one registered again (no answer, no responder: NATS came back to it
   * before them, or the bus is down): told again at each sweep while the registry lists them live.
   */
  const untold = new Set<string>();
  let telling = false;
  /** This process's epoch since it last registered again (0 until then: not said to anyone). */
  let ownEpoch = 0;
  const epochOf = (node: string): number => registry.epochOf?.(node) ?? 0;

  async function tellBack(nodes: readonly string[]): Promise<void> {
    telling = true;
    try {
      const told = await Promise.allSettled(
        nodes.map((node) =>
          bus.request(
            nodeBackSubject(node),
            { node: bus.nodeId, epoch: ownEpoch },
            { timeoutMs: nodeBackTimeoutMs },
          ),
        ),
      );
      told.forEach((result, i) => {
        const node = nodes[i];
        if (node === undefined) return;
        if (result.status === 'fulfilled') untold.delete(node);
        else untold.add(node);
      });
    } finally {
      telling = false;
    }
    if (untold.size > 0) logger.warn({ nodes: untold.size }, 'hub processes not yet told this one is back');
  }

  function tellUntold(): void {
    if (telling || untold.size === 0) return;
    for (const node of [...untold]) if (!registry.isLive(node)) untold.delete(node);
    if (untold.size > 0) void tellBack([...untold]);
  }

  const unsubscribes: (() => void)[] = [];
  /** Answers and subscriptions kinds declared, made at start (a cluster of one answers nothing). */
  const pending: (() => () => void)[] = [];
  let sweep: NodeJS.Timeout | null = null;
  let started = false;

  /** `node`'s lease of `epoch` ran out (no epoch: the newest this process knows of it). */
  function nodeGone(node: string, epoch?: number): void {
    if (node === bus.nodeId || gone.has(node)) return;
    const went = epoch ?? Math.max(listed.get(node) ?? 0, backUnder.get(node) ?? 0);
    // It said it is back under a newer epoch before this word of its going arrived.
    if ((backUnder.get(node) ?? 0) > went) return;
    gone.set(node, went);
    if (gone.size > ownedDefaults.goneKept) gone.delete(gone.keys().next().value ?? node);
    listed.delete(node);
    const ends = held.get(node);
    held.delete(node);
    for (const end of ends ?? []) end();
    for (const listener of listeners) listener(node);
  }

  /** `node` registered again under `epoch`: taken at its word again if that is newer than the one that went. */
  async function nodeBack(node: string, epoch: number | undefined): Promise<void> {
    const went = gone.get(node);
    if (epoch !== undefined) backUnder.set(node, Math.max(epoch, backUnder.get(node) ?? 0));
    if (went === undefined || (epoch !== undefined && epoch <= went)) return;
    gone.delete(node);
    logger.info({ node, epoch }, 'a hub process taken for gone registered again');
    await Promise.allSettled([...backListeners].map(async (listener) => listener(node)));
  }

  function sweepOnce(): void {
    tellUntold();
    for (const node of registry.liveNodes()) {
      const epoch = epochOf(node);
      const went = gone.get(node);
      if (went === undefined) listed.set(node, epoch);
      // Listed under a newer epoch than the one that went: back, even if its word never came.
      else if (epoch > went) void nodeBack(node, epoch);
    }
    for (const node of [...held.keys()]) {
      const epoch = listed.get(node);
      if (!registry.isLive(node) && epoch !== undefined) nodeGone(node, epoch);
    }
  }

  function hold(node: string, onGone: () => void): () => void {
    if (gone.has(node)) {
      queueMicrotask(onGone);
      return () => undefined;
    }
    if (registry.isLive(node)) listed.set(node, epochOf(node));
    let set = held.get(node);
    if (!set) held.set(node, (set = new Set()));
    const entry = () => {
      onGone();
    };
    set.add(entry);
    return () => {
      const current = held.get(node);
      current?.delete(entry);
      if (current?.size === 0) held.delete(node);
    };
  }

  const whenStarted = (subscribe: () => () => void) => {
    if (started) unsubscribes.push(subscribe());
    else pending.push(subscribe);
  };

  function kind<D extends OwnedKindDef>(declared: OwnedKind<D>): OwnedStateKind<D> {
    const name = declared.def.name;
    const subject = (node: string, verb: string) => ownedSubject(node, name, verb);
    return {
      name,
      subject,

      async request(owner, verb, data, options) {
        let release: () => void = () => undefined;
        const ownerGone = new Promise<never>((_, reject) => {
          release = hold(owner, () => {
            reject(new OwnerGoneError(owner));
          });
        });
        try {
          const reply = await Promise.race([
            bus.request(subject(owner, verb), data, { timeoutMs: options.timeoutMs }),
            ownerGone,
          ]);
          if (!declared.checks.reply[verb].Check(reply)) throw new InvalidReplyError(name, verb);
          return reply as ReplyOf<D, typeof verb>;
        } finally {
          release();
        }
      },

      notify(owner, verb, data) {
        try {
          bus.publish(subject(owner, verb), data);
        } catch (error) {
          logger.debug({ err: error, kind: name, verb }, 'a notify to another hub process was not sent');
        }
      },

      answer(verb, handler) {
        whenStarted(() =>
          bus.respond(subject(bus.nodeId, verb), async (data, meta) => {
            if (!declared.checks.request[verb].Check(data)) throw new Error(`invalid ${name} ${verb}`);
            return handler(data as RequestOf<D, typeof verb>, meta);
          }),
        );
      },

      on(verb, handler) {
        whenStarted(() =>
          bus.subscribe(subject(bus.nodeId, verb), (data, meta) => {
            if (gone.has(meta.from)) return;
            if (!declared.checks.notify[verb].Check(data)) {
              logger.warn(
                { kind: name, verb, node: meta.from },
                'an invalid notify from another hub process',
              );
              return;
            }
            handler(data as NotifyOf<D, typeof verb>, meta);
          }),
        );
      },
    };
  }

  return {
    bus,
    registry,
    kind,
    hold,
    onNodeGone(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onNodeBack(listener) {
      backListeners.add(listener);
      return () => backListeners.delete(listener);
    },
    isGone: (node) => gone.has(node),

    start() {
      if (!bus.shared || started) return;
      started = true;
      for (const subscribe of pending.splice(0)) unsubscribes.push(subscribe());
      unsubscribes.push(
        bus.subscribe(nodeGoneSubject, (data) => {
          if (nodeEpochCheck.Check(data)) nodeGone(data.node, data.epoch);
        }),
        // Only a node speaks for itself: the message is signed by its sender (decision 0042).
        bus.respond(nodeBackSubject(bus.nodeId), async (data, meta) => {
          if (!nodeEpochCheck.Check(data) || data.node !== meta.from) throw new Error('invalid node back');
          await nodeBack(data.node, data.epoch);
          return {};
        }),
        registry.onLeaseRegained?.((epoch) => {
          ownEpoch = epoch;
          return tellBack([...registry.liveNodes()].filter((node) => node !== bus.nodeId));
        }) ?? (() => undefined),
        bus.onReconnected(tellUntold),
        registry.onNodeGone((node, epoch) => {
          nodeGone(node, epoch);
          try {
            bus.publish(nodeGoneSubject, epoch === undefined ? { node } : { node, epoch });
          } catch (error) {
            logger.warn({ err: error, node }, 'telling the other hub processes a node is gone failed');
          }
        }),
      );
      sweep = setInterval(sweepOnce, sweepMs);
      sweep.unref();
    },

    close() {
      if (sweep) clearInterval(sweep);
      sweep = null;
      started = false;
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      const all = [...held.values()].flatMap((set) => [...set]);
      held.clear();
      for (const end of all) end();
    },
  };
}

/** The seam of a cluster of one (a module built without the hub's): nothing crosses a process. */
export function createLocalOwnedStates(logger: Logger): OwnedStates {
  const bus = createLocalClusterBus();
  return createOwnedStates({ bus, registry: createSingleNodeRegistry(bus.nodeId), logger });
}
