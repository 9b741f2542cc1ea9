import { describe, expect, it } from 'vitest';
import type { EventPayload } from '@svc/protocol';
import { ManualClock } from './clock.js';
import { createMemoryClusterNetwork } from './cluster/cluster-bus.js';
import {
  clusterEventsSubject,
  createClusterEventBus,
  createInProcessEventBus,
  type HubEvent,
} from './event-bus.js';

const online: EventPayload<'asset.online'> = { asset_ids: ['a'], asset_id: 'a', name: 'web-1' };

describe('in-process event bus', () => {
  it('delivers {id, type, ts, data} to every subscriber, and only the types a filter names', () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));
    const bus = createInProcessEventBus({ clock });
    const all: HubEvent[] = [];
    const offline: HubEvent<'asset.offline'>[] = [];
    bus.subscribe((e) => all.push(e));
    bus.subscribe<'asset.offline'>((e) => offline.push(e), { types: ['asset.offline'] });
    const published = bus.publish('asset.online', online);
    bus.publish('asset.offline', { ...online });
    expect(published).toMatchObject({ type: 'asset.online', ts: '2026-01-01T00:00:00.000Z', data: online });
    expect(published.id).toMatch(/^evt_/);
    expect(all.map((e) => e.type)).toEqual(['asset.online', 'asset.offline']);
    expect(offline.map((e) => e.data.asset_id)).toEqual(['a']);
  });

  it('a listener that throws is reported and does not keep the event from the others', () => {
    const errors: unknown[] = [];
    const bus = createInProcessEventBus({ clock: new ManualClock(), onListenerError: (e) => errors.push(e) });
    const seen: string[] = [];
    bus.subscribe(() => {
      throw new Error('listener broke');
    });
    bus.subscribe((e) => seen.push(e.type));
    bus.publish('asset.online', online);
    expect(seen).toEqual(['asset.online']);
    expect(errors).toHaveLength(1);
  });

  it('unsubscribe and close stop delivery', () => {
    const bus = createInProcessEventBus({ clock: new ManualClock() });
    const first: string[] = [];
    const second: string[] = [];
    const stop = bus.subscribe((e) => first.push(e.type));
    bus.subscribe((e) => second.push(e.type));
    stop();
    bus.publish('asset.online', online);
    bus.close();
    bus.publish('asset.online', online);
    expect(first).toEqual([]);
    expect(second).toEqual(['asset.online']);
  });

  it('with validation on, a payload that drifted from its schema throws before anyone receives it', () => {
    const bus = createInProcessEventBus({ clock: new ManualClock(), validate: true });
    const seen: HubEvent[] = [];
    bus.subscribe((e) => seen.push(e));
    // A caller outside the type system (or a cast) is what the runtime check is for.
    const drifted = { asset_id: 'a', name: 'web-1' } as unknown as EventPayload<'asset.online'>;
    expect(() => bus.publish('asset.online', drifted)).toThrow(/asset\.online: payload/);
    const extra = { ...online, secret: 'x' } as EventPayload<'asset.online'>;
    expect(() => bus.publish('asset.online', extra)).toThrow(/asset\.online/);
    expect(seen).toEqual([]);
  });

  it('types the payload by event type at compile time', () => {
    const bus = createInProcessEventBus({ clock: new ManualClock() });
    // @ts-expect-error asset_ids is required on every payload
    bus.publish('asset.online', { asset_id: 'a', name: 'web-1' });
    // @ts-expect-error exec.completed does not take an asset.online payload
    bus.publish('exec.completed', online);
    expect(true).toBe(true);
  });
});

describe('cluster event bus', () => {
  function twoProcesses() {
    const network = createMemoryClusterNetwork();
    const busA = network.join();
    const busB = network.join();
    const drops: string[] = [];
    const a = createClusterEventBus({ clock: new ManualClock(), bus: busA });
    const b = createClusterEventBus({
      clock: new ManualClock(),
      bus: busB,
      onDropped: (reason) => drops.push(reason),
    });
    return { network, busA, busB, a, b, drops };
  }

  /** The memory network delivers a microtask later. */
  const delivered = () => new Promise((resolve) => setTimeout(resolve, 0));

  it('delivers another process’s events to cluster-reach subscribers only, with their id and ts', async () => {
    const { a, b } = twoProcesses();
    const origin: HubEvent[] = [];
    const cluster: HubEvent[] = [];
    const clusterAtA: HubEvent[] = [];
    b.subscribe((e) => origin.push(e));
    b.subscribe((e) => cluster.push(e), { reach: 'cluster' });
    a.subscribe((e) => clusterAtA.push(e), { reach: 'cluster' });

    const published = a.publish('asset.online', online);
    await delivered();
    expect(origin).toEqual([]);
    expect(cluster).toEqual([published]);
    // The publisher's own subscribers hear it once, whatever their reach.
    expect(clusterAtA).toEqual([published]);

    const local = b.publish('asset.offline', online);
    await delivered();
    expect(origin).toEqual([local]);
    expect(cluster).toEqual([published, local]);
    expect(clusterAtA).toEqual([published, local]);
  });

  it('drops a forged event whose payload does not match its type, and counts it', async () => {
    const { busA, b, drops } = twoProcesses();
    const cluster: HubEvent[] = [];
    b.subscribe((e) => cluster.push(e), { reach: 'cluster' });
    busA.publish(clusterEventsSubject, {
      id: 'evt_x',
      type: 'asset.online',
      ts: new Date().toISOString(),
      data: { asset_id: 5 },
    });
    busA.publish(clusterEventsSubject, {
      id: 'evt_y',
      type: 'no.such',
      ts: new Date().toISOString(),
      data: {},
    });
    busA.publish(clusterEventsSubject, 'garbage');
    busA.publish(clusterEventsSubject, { id: 'evt_z', type: 'asset.online', ts: 'not a date', data: online });
    await delivered();
    expect(cluster).toEqual([]);
    expect(drops).toHaveLength(4);
    busA.publish(clusterEventsSubject, {
      id: 'evt_ok',
      type: 'asset.online',
      ts: '2026-01-01T00:00:00.000Z',
      data: online,
    });
    await delivered();
    expect(cluster.map((e) => e.id)).toEqual(['evt_ok']);
  });

  it('stops hearing the cluster once closed', async () => {
    const { a, b } = twoProcesses();
    const cluster: HubEvent[] = [];
    b.subscribe((e) => cluster.push(e), { reach: 'cluster' });
    b.close();
    a.publish('asset.online', online);
    await delivered();
    expect(cluster).toEqual([]);
  });
});
