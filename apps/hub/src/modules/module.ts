/**
 * What a module is: one area of the interface (its folder under `modules/`, its contracts in protocol's
 * `api/<area>.ts`, every contract name beginning with the area), made by one `create<Area>Module(deps)` that
 * returns what the area contributes to the hub. hub/modules.ts lists the modules in order (by group) and
 * hub.ts composes them here.
 */
import {
  areaOf,
  routeList,
  type AreaName,
  type BuiltRouteName,
  type EventType,
  type RouteName,
} from '@svc/protocol';
import type { EarlyRefusals, Handlers, RawHandlers } from '../http/register-routes.js';
import type { PublicUpgradeHandlers, UpgradeHandlers } from '../http/upgrade.js';
import type { EventBus, EventReach, HubEvent } from '../platform/event-bus.js';
import type { RetentionTask } from '../platform/retention.js';

/** A listener on the event bus, subscribed while the hub runs. */
export interface EventSubscriber<T extends EventType = EventType> {
  types: readonly T[];
  listener: (event: HubEvent<T>) => void;
  reach: EventReach;
}

/**
 * Declares a subscriber with its listener typed by the event types it names. `origin` (the default): only
 * events this process published, for work done once per event across the cluster (a delivery, a purge);
 * `cluster`: every process's events, for what each process keeps for itself (a cache, open connections).
 */
export function subscriber<T extends EventType>(
  types: readonly T[],
  listener: (event: HubEvent<T>) => void,
  reach: EventReach = 'origin',
): EventSubscriber {
  // The bus hands this listener only events of `types`.
  return { types, listener: listener as (event: HubEvent) => void, reach };
}

interface ModuleParts<S extends object> {
  /** The area: the module's folder, and the part before the first dot of every contract it answers. */
  name: AreaName;
  /** What other modules and hub.ts may use: its services (the module's public surface at run time). */
  services: S;
  handlers?: Handlers;
  /** Handlers that write their own reply (documents, downloads, streams), behind the same guard. */
  rawHandlers?: RawHandlers;
  /** Refusals of its routes made before the body is read (register-routes.ts, EarlyRefusal). */
  earlyRefusals?: EarlyRefusals;
  /** WebSocket endpoints, after the guard has admitted the caller. */
  upgrades?: UpgradeHandlers;
  /** `public` WebSocket endpoints that check their own credential (the agent channel). */
  publicUpgrades?: PublicUpgradeHandlers;
  subscribers?: readonly EventSubscriber[];
  /** What the module keeps only for a while: hub.ts runs every module's tasks (platform/retention.ts). */
  retention?: readonly RetentionTask[];
  /** Background work begins (after every module is built, in the modules' order). */
  start?(): void;
  /** Background work ends and is flushed (in reverse order, after the HTTP server has closed). */
  close?(): Promise<void>;
}

export interface HubModule<
  S extends object = object,
  A extends RouteName = RouteName,
> extends ModuleParts<S> {
  /** The contracts this module answers (handlers of any kind), for the checks at composition. */
  answers: readonly A[];
}

type KeysOf<T> = Extract<keyof T, RouteName>;

/** Builds a module and records, in its type and at run time, which contracts it answers. */
export function defineModule<
  S extends object,
  H extends Handlers = never,
  R extends RawHandlers = never,
  U extends UpgradeHandlers = never,
  P extends PublicUpgradeHandlers = never,
>(
  parts: ModuleParts<S> & { handlers?: H; rawHandlers?: R; upgrades?: U; publicUpgrades?: P },
): HubModule<S, KeysOf<H> | KeysOf<R> | KeysOf<U> | KeysOf<P>> {
  // A WebSocket endpoint has an HTTP answer too (for a request without the upgrade): one contract, two kinds.
  const answers = [
    ...new Set([
      ...Object.keys(parts.handlers ?? {}),
      ...Object.keys(parts.rawHandlers ?? {}),
      ...Object.keys(parts.upgrades ?? {}),
      ...Object.keys(parts.publicUpgrades ?? {}),
    ]),
  ] as (KeysOf<H> | KeysOf<R> | KeysOf<U> | KeysOf<P>)[];
  return { ...parts, answers };
}

/** The contracts a module type answers. */
export type AnsweredBy<M> = M extends HubModule<object, infer A> ? A : never;

/**
 * `true` when every built contract has a handler among `A`; otherwise a type naming the ones without, so the
 * argument `true` in `composeModules(modules, true)` fails to compile and the error lists them.
 */
export type EveryContractAnswered<A extends RouteName> = [Exclude<BuiltRouteName, A>] extends [never]
  ? true
  : { unanswered: Exclude<BuiltRouteName, A> };

export interface ComposedModules {
  handlers: Handlers;
  rawHandlers: RawHandlers;
  earlyRefusals: EarlyRefusals;
  upgrades: UpgradeHandlers;
  publicUpgrades: PublicUpgradeHandlers;
  /** Every module's retention tasks, in the modules' order. */
  retentionTasks: readonly RetentionTask[];
  /** Subscribes every module's subscribers, then starts the modules in order. */
  start(events: EventBus): void;
  /** Unsubscribes, then closes the modules in reverse order (each one even when an earlier close failed). */
  close(): Promise<void>;
}

const builtContracts = routeList.filter((contract) => contract.plannedIn === undefined);

/**
 * Merges the modules' handlers. Refused at start: two modules of one area, a contract answered twice by its
 * module, a contract outside the module's area, and a built contract (not marked planned) that no module
 * answers — the last is also a compile error through the second argument (EveryContractAnswered).
 */
export function composeModules<M extends HubModule>(
  modules: readonly M[],
  // Only its type matters: see EveryContractAnswered.
  _everyContractAnswered: EveryContractAnswered<AnsweredBy<M>>,
): ComposedModules {
  const answered = new Set<string>();
  const names = new Set<string>();
  const inBoth = (a: object | undefined, b: object | undefined) =>
    Object.keys(a ?? {}).filter((name) => Object.hasOwn(b ?? {}, name));
  for (const module of modules) {
    // One module per area, and a contract only in its own area's: no contract can have two modules.
    if (names.has(module.name)) throw new Error(`two modules named ${module.name}`);
    names.add(module.name);
    const [twice] = [
      ...inBoth(module.handlers, module.rawHandlers),
      ...inBoth(module.upgrades, module.publicUpgrades),
    ];
    if (twice !== undefined) throw new Error(`${twice} is answered twice (module ${module.name})`);
    for (const contract of module.answers) {
      if (areaOf(contract) !== module.name) {
        throw new Error(`module ${module.name} answers ${contract}, a contract of area ${areaOf(contract)}`);
      }
      answered.add(contract);
    }
  }
  const unanswered = builtContracts.filter((contract) => !answered.has(contract.name)).map((c) => c.name);
  if (unanswered.length > 0) throw new Error(`no module answers ${unanswered.join(', ')}`);

  const unsubscribes: (() => void)[] = [];
  return {
    handlers: Object.assign({}, ...modules.map((m) => m.handlers ?? {})) as Handlers,
    rawHandlers: Object.assign({}, ...modules.map((m) => m.rawHandlers ?? {})) as RawHandlers,
    earlyRefusals: Object.assign({}, ...modules.map((m) => m.earlyRefusals ?? {})) as EarlyRefusals,
    upgrades: Object.assign({}, ...modules.map((m) => m.upgrades ?? {})) as UpgradeHandlers,
    publicUpgrades: Object.assign({}, ...modules.map((m) => m.publicUpgrades ?? {})) as PublicUpgradeHandlers,
    retentionTasks: modules.flatMap((m) => m.retention ?? []),
    start(events) {
      for (const module of modules) {
        for (const { types, listener, reach } of module.subscribers ?? []) {
          unsubscribes.push(events.subscribe(listener, { types, reach }));
        }
      }
      for (const module of modules) module.start?.();
    },
    async close() {
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      const failures: unknown[] = [];
      for (const module of [...modules].reverse()) {
        try {
          await module.close?.();
        } catch (error) {
          failures.push(error);
        }
      }
      if (failures.length > 0) throw failures[0];
    },
  };
}
