/**
 * Composing the modules: every contract not marked planned must have exactly one answer, from the module of
 * its area — refused at compile time (the `true` argument) and again at start.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { areaOf, routeList, type AreaName, type BuiltRouteName } from '@svc/protocol';
import type { Handlers } from '../http/register-routes.js';
import { createInProcessEventBus } from '../platform/event-bus.js';
import { ManualClock } from '../platform/clock.js';
import {
  composeModules,
  defineModule,
  subscriber,
  type EveryContractAnswered,
  type HubModule,
} from './module.js';

const built = routeList.filter((r) => r.plannedIn === undefined).map((r) => r.name);

/** Handlers that answer `names` (never called here). */
function stubHandlers(names: readonly string[]): Handlers {
  return Object.fromEntries(names.map((name) => [name, () => Promise.resolve(null)]));
}

/** One module per area, each answering the built contracts of its area (minus `leaveOut`). */
function modulesForEveryArea(leaveOut: readonly string[] = []): HubModule[] {
  const byArea = new Map<string, string[]>();
  for (const name of built) {
    if (leaveOut.includes(name)) continue;
    byArea.set(areaOf(name), [...(byArea.get(areaOf(name)) ?? []), name]);
  }
  return [...byArea].map(([area, names]) =>
    defineModule({ name: area as AreaName, services: {}, handlers: stubHandlers(names) }),
  );
}

describe('composeModules', () => {
  it('accepts modules that answer every built contract', () => {
    const composed = composeModules(modulesForEveryArea(), true);

    expect(Object.keys(composed.handlers).sort()).toEqual([...built].sort());
  });

  it('refuses a built contract no module answers, naming it', () => {
    expect(() => composeModules(modulesForEveryArea(['power.wake', 'groups.get']), true)).toThrow(
      /^no module answers (power\.wake, groups\.get|groups\.get, power\.wake)$/,
    );
  });

  it('refuses two modules of one area, and a contract answered twice by one module', () => {
    const extra = defineModule({ name: 'hub', services: {}, handlers: stubHandlers(['hub.status']) });
    expect(() => composeModules([...modulesForEveryArea(), extra], true)).toThrow('two modules named hub');

    const twice = defineModule({
      name: 'exec',
      services: {},
      handlers: stubHandlers(['exec.single', 'exec.many']),
      rawHandlers: { 'exec.many': () => Promise.resolve(null) },
    });
    const others = modulesForEveryArea().filter((m) => m.name !== 'exec');
    expect(() => composeModules([...others, twice], true)).toThrow(
      'exec.many is answered twice (module exec)',
    );
  });

  it('refuses a module answering a contract outside its area', () => {
    const modules = modulesForEveryArea(['settings.restart']);
    const hub = modules.findIndex((m) => m.name === 'hub');
    modules[hub] = defineModule({
      name: 'hub',
      services: {},
      handlers: stubHandlers([...built.filter((n) => areaOf(n) === 'hub'), 'settings.restart']),
    });

    expect(() => composeModules(modules, true)).toThrow(
      'module hub answers settings.restart, a contract of area settings',
    );
  });

  it('subscribes and starts modules in order, closes them in reverse, and closes every one when one fails', async () => {
    const seen: string[] = [];
    const events = createInProcessEventBus({ clock: new ManualClock() });
    const modules = modulesForEveryArea().map((m, index) =>
      index < 2
        ? {
            ...m,
            subscribers: [
              subscriber(['asset.deleted'], () => {
                seen.push(`${m.name} heard`);
              }),
            ],
            start: () => {
              seen.push(`${m.name} started`);
            },
            close: () => {
              seen.push(`${m.name} closed`);
              return index === 1 ? Promise.reject(new Error('flush failed')) : Promise.resolve();
            },
          }
        : m,
    );
    const [first, second] = modules.map((m) => m.name);
    const composed = composeModules(modules, true);

    composed.start(events);
    events.publish('asset.deleted', { asset_ids: ['ast_1'], asset_id: 'ast_1', name: 'a' });
    await expect(composed.close()).rejects.toThrow('flush failed');
    events.publish('asset.deleted', { asset_ids: ['ast_2'], asset_id: 'ast_2', name: 'b' });

    expect(seen).toEqual([
      `${first} started`,
      `${second} started`,
      `${first} heard`,
      `${second} heard`,
      `${second} closed`,
      `${first} closed`,
    ]);
  });
});

describe('the compile-time check', () => {
  it('types the argument `true` only when every built contract is answered', () => {
    expectTypeOf<EveryContractAnswered<BuiltRouteName>>().toEqualTypeOf<true>();
    expectTypeOf<EveryContractAnswered<Exclude<BuiltRouteName, 'power.wake'>>>().toEqualTypeOf<{
      unanswered: 'power.wake';
    }>();
  });

  it('rejects composing modules that leave a built contract without a handler', () => {
    // Never called: tsc (npm run typecheck) checks these calls, and fails on an @ts-expect-error it does not
    // need, so the first call proves a missing handler does not compile.
    const calls = (
      withoutWake: HubModule<object, Exclude<BuiltRouteName, 'power.wake'>>,
      wakeOnly: HubModule<object, 'power.wake'>,
    ) => {
      // @ts-expect-error power.wake has no handler: the argument must be { unanswered: 'power.wake' }
      composeModules([withoutWake], true);
      composeModules([withoutWake, wakeOnly], true);
    };

    expect(calls).toBeTypeOf('function');
  });
});
