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
 * - ends what depends on a node when it goes away (`hold`, node-liveness.ts): told by the registry (one
 *   survivor, which tells the others on `svc.nodes.gone`), or found by one sweep of the nodes held against it.
 * Streams of any kind use the stream relay (agents/cluster-streams.ts) on the kind's `open` subject, each
 * stream held against its peer node here.
 */
import { Compile } from 'typebox/compile';
import type { Static, TSchema } from 'typebox';
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
import { createNodeLiveness, type NodeLiveness } from './node-liveness.js';
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

/** A process's owned state: its kinds, and node liveness (hold, gone and back: node-liveness.ts). */
export interface OwnedStates extends Pick<NodeLiveness, 'hold' | 'onNodeGone' | 'onNodeBack' | 'isGone'> {
  readonly bus: ClusterBus;
  /** Which nodes are live: an owner named by a row is asked only while its lease holds. */
  readonly registry: Pick<NodeRegistry, 'isLive' | 'liveNodes'>;
  /** This process's view of one kind. */
  kind<D extends OwnedKindDef>(kind: OwnedKind<D>): OwnedStateKind<D>;
  /** Subscribes and starts the sweep (nothing for a cluster of one). */
  start(): void;
  close(): void;
}

/** What a node's liveness needs of the cluster. */
type LivenessDeps = Parameters<typeof createNodeLiveness>[0];

export function createOwnedStates(deps: LivenessDeps): OwnedStates {
  const { bus, registry, logger } = deps;
  const liveness = createNodeLiveness(deps);
  const hold = (node: string, onGone: () => void) => liveness.hold(node, onGone);
  const isGone = (node: string) => liveness.isGone(node);
  const unsubscribes: (() => void)[] = [];
  /** Answers and subscriptions kinds declared, made at start (a cluster of one answers nothing). */
  const pending: (() => () => void)[] = [];
  let started = false;

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
            if (isGone(meta.from)) return;
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
    onNodeGone: (listener) => liveness.onNodeGone(listener),
    onNodeBack: (listener) => liveness.onNodeBack(listener),
    isGone,

    start() {
      if (!bus.shared || started) return;
      started = true;
      for (const subscribe of pending.splice(0)) unsubscribes.push(subscribe());
      unsubscribes.push(liveness.start());
    },

    close() {
      started = false;
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      liveness.close();
    },
  };
}

/** The seam of a cluster of one (a module built without the hub's): nothing crosses a process. */
export function createLocalOwnedStates(logger: Logger): OwnedStates {
  const bus = createLocalClusterBus();
  return createOwnedStates({ bus, registry: createSingleNodeRegistry(bus.nodeId), logger });
}
