/**
 * The owned-state seam (decision 0058) on an in-memory cluster network: a request reaches the owner and is
 * checked on both ends; a reply outside the catalogue is rejected; the owner going away fails what waits on
 * it with the kind's "gone" error, and ends the streams relayed to it; the bus unavailable is told apart
 * from an owner gone; a node that stalled past its lease and registered again is taken back under its new
 * epoch, whatever order the others learn of its going and its return (decision 0053).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Type } from 'typebox';
import type { AgentStreamHandle, AgentStreams, StreamEnd } from '../../agents/agent-gateway.js';
import { createStreamRelay } from '../../agents/cluster-streams.js';
import { FakeNodeRegistries } from '../../testing/fake-node-registry.js';
import { silentLogger } from '../logger.js';
import {
  ClusterUnavailableError,
  createMemoryClusterNetwork,
  type MemoryClusterNetwork,
} from './cluster-bus.js';
import {
  createOwnedStates,
  defineOwnedKind,
  InvalidReplyError,
  ownedCallError,
  type OwnedErrors,
  type OwnedStates,
} from './owned-state.js';
import { WireId } from './wire-values.js';

const thingKind = defineOwnedKind({
  name: 'thing',
  requests: {
    poke: {
      request: Type.Object({ id: WireId }, { additionalProperties: false }),
      reply: Type.Object({ pokes: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
    },
  },
  notifies: {
    nudge: Type.Object({ id: WireId }, { additionalProperties: false }),
  },
});

class ThingGoneError extends Error {}
const thingErrors: OwnedErrors = {
  gone: () => new ThingGoneError('the thing is gone'),
  timeout: () => new Error('the thing did not answer'),
  failed: (message) => new Error(message),
};
const call = <T>(promise: Promise<T>): Promise<T> =>
  promise.catch((error: unknown) => {
    throw ownedCallError(error, thingErrors);
  });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('owned-state seam', () => {
  let network: MemoryClusterNetwork;
  let registries: FakeNodeRegistries;
  const seams: OwnedStates[] = [];

  async function processOn(node: string, sweepMs = 1_000): Promise<OwnedStates> {
    const bus = network.join(node);
    const registry = registries.registry(node);
    await registry.start();
    const owned = createOwnedStates({ bus, registry, logger: silentLogger, sweepMs });
    owned.start();
    seams.push(owned);
    return owned;
  }

  afterEach(() => {
    for (const owned of seams.splice(0)) owned.close();
  });

  it('reaches the owner on svc.node.<owner>.<kind>.<verb>, checked on both ends', async () => {
    network = createMemoryClusterNetwork();
    registries = new FakeNodeRegistries();
    const owner = await processOn('node_owner');
    const caller = await processOn('node_caller');
    const asked: { id: string; from: string }[] = [];
    const nudged: string[] = [];
    owner.kind(thingKind).answer('poke', (data, meta) => {
      asked.push({ id: data.id, from: meta.from });
      return { pokes: asked.length };
    });
    owner.kind(thingKind).on('nudge', (data) => nudged.push(data.id));
    const things = caller.kind(thingKind);
    expect(things.subject('node_owner', 'poke')).toBe('svc.node.node_owner.thing.poke');

    await expect(
      things.request('node_owner', 'poke', { id: 'thg_1' }, { timeoutMs: 1_000 }),
    ).resolves.toEqual({
      pokes: 1,
    });
    expect(asked).toEqual([{ id: 'thg_1', from: 'node_caller' }]);

    // A request outside the catalogue never reaches the owner's handler.
    const bad = caller.bus.request(
      things.subject('node_owner', 'poke'),
      { id: 'thg 1' },
      { timeoutMs: 1_000 },
    );
    await expect(call(bad)).rejects.toThrow(/owns it failed: invalid thing poke/);
    expect(asked).toHaveLength(1);

    // Notifies too: the invalid one is dropped.
    things.notify('node_owner', 'nudge', { id: 'thg_2' });
    caller.bus.publish(things.subject('node_owner', 'nudge'), { id: 'thg_3', extra: true });
    await until(() => nudged.length === 1, 'the nudge');
    await new Promise((r) => setTimeout(r, 20));
    expect(nudged).toEqual(['thg_2']);
  });

  it('rejects a reply outside the catalogue', async () => {
    network = createMemoryClusterNetwork();
    registries = new FakeNodeRegistries();
    const owner = await processOn('node_owner');
    const caller = await processOn('node_caller');
    // An owner of another version (or a forged answer): the raw responder answers what it likes.
    owner.bus.respond(owner.kind(thingKind).subject('node_owner', 'poke'), () =>
      Promise.resolve({ pokes: -1 }),
    );
    const asking = caller
      .kind(thingKind)
      .request('node_owner', 'poke', { id: 'thg_1' }, { timeoutMs: 1_000 });
    await expect(asking).rejects.toBeInstanceOf(InvalidReplyError);
    await expect(call(asking)).rejects.toThrow('the hub process that owns the thing answered poke invalidly');
  });

  it("fails a pending request and ends relayed streams with the kind's gone error when the owner goes", async () => {
    network = createMemoryClusterNetwork();
    registries = new FakeNodeRegistries();
    const owner = await processOn('node_owner');
    const caller = await processOn('node_caller', 20);
    let answer: () => void = () => undefined;
    owner.kind(thingKind).answer(
      'poke',
      () =>
        new Promise((resolve) => {
          answer = () => {
            resolve({ pokes: 1 });
          };
        }),
    );
    // A stream the owner holds open for the caller, on the same kind.
    const ownerStreams: AgentStreams = {
      openStream: (id, options) =>
        Promise.resolve({
          id,
          assetId: id,
          kind: options.kind,
          info: { shell: '/bin/sh', pid: 1 },
          closed: false,
          queuedBytes: 0,
          write: () => true,
          resize: () => undefined,
          ack: () => undefined,
          close: () => undefined,
        } as unknown as AgentStreamHandle<typeof options.kind>),
    };
    createStreamRelay({ owned: owner, kind: 'thing', local: ownerStreams, logger: silentLogger }).start();
    const relay = createStreamRelay({
      owned: caller,
      kind: 'thing',
      local: ownerStreams,
      logger: silentLogger,
    });
    const ends: StreamEnd[] = [];
    const stream = await relay.open('node_owner', 'thg_1', {
      kind: 'pty',
      params: { cols: 80, rows: 24 },
      onData: () => undefined,
      onClose: (end) => ends.push(end),
    });
    expect(stream.closed).toBe(false);

    const pending = call(
      caller.kind(thingKind).request('node_owner', 'poke', { id: 'thg_1' }, { timeoutMs: 5_000 }),
    );
    await new Promise((r) => setTimeout(r, 30));
    // The owner's lease runs out; the registry tells a third process, not the caller: its sweep finds it.
    await owner.bus.close();
    await registries.kill('node_owner', 'node_elsewhere');
    await expect(pending).rejects.toBeInstanceOf(ThingGoneError);
    await until(() => ends.length === 1, 'the stream end');
    expect(ends[0]).toMatchObject({
      by: 'hub',
      reason: 'the hub process at the other end of the stream went away',
    });
    expect(stream.closed).toBe(true);
    expect(caller.isGone('node_owner')).toBe(true);
    answer();

    // Asking a gone owner again: no process answers for it, the same gone error.
    await expect(
      call(caller.kind(thingKind).request('node_owner', 'poke', { id: 'thg_1' }, { timeoutMs: 1_000 })),
    ).rejects.toBeInstanceOf(ThingGoneError);
  });

  it('tells the others when the registry tells one process a node is gone', async () => {
    network = createMemoryClusterNetwork();
    registries = new FakeNodeRegistries();
    await processOn('node_owner');
    const told = await processOn('node_told');
    const other = await processOn('node_other', 60_000);
    const gone: string[] = [];
    other.onNodeGone((node) => gone.push(node));
    const released: string[] = [];
    other.hold('node_owner', () => released.push('held'));
    await registries.kill('node_owner', 'node_told');
    await until(() => gone.length === 1, 'the broadcast');
    expect(gone).toEqual(['node_owner']);
    expect(released).toEqual(['held']);
    expect(told.isGone('node_owner')).toBe(true);
  });

  it('tells the bus unavailable apart from an owner gone', async () => {
    network = createMemoryClusterNetwork();
    registries = new FakeNodeRegistries();
    const owner = await processOn('node_owner');
    const caller = await processOn('node_caller');
    owner.kind(thingKind).answer('poke', () => ({ pokes: 1 }));
    network.setDown(true);
    const asking = call(
      caller.kind(thingKind).request('node_owner', 'poke', { id: 'thg_1' }, { timeoutMs: 1_000 }),
    );
    await expect(asking).rejects.toBeInstanceOf(ClusterUnavailableError);
    await expect(asking).rejects.not.toBeInstanceOf(ThingGoneError);
    network.setDown(false);
    await expect(
      call(caller.kind(thingKind).request('node_owner', 'poke', { id: 'thg_1' }, { timeoutMs: 1_000 })),
    ).resolves.toEqual({ pokes: 1 });
  });

  describe('a node that stalled past its lease and registered again', () => {
    /** Three processes; the survivor sweeps every 10 ms and holds something of the owner's, again once back. */
    async function stalledOwner() {
      network = createMemoryClusterNetwork();
      registries = new FakeNodeRegistries();
      await processOn('node_owner');
      const told = await processOn('node_told');
      const survivor = await processOn('node_survivor', 10);
      const back: string[] = [];
      let released = 0;
      const holdOwner = () =>
        survivor.hold('node_owner', () => {
          released += 1;
        });
      survivor.onNodeBack((node) => {
        back.push(node);
        holdOwner();
      });
      holdOwner();
      return { told, survivor, back, released: () => released };
    }

    it('is not taken for gone again by a listing read before its lease was removed', async () => {
      const { survivor, back, released } = await stalledOwner();
      // The survivor's last renewal read the leases before the owner's was removed: it still lists it.
      registries.hold('node_survivor');
      await registries.kill('node_owner', 'node_told');
      await until(() => survivor.isGone('node_owner'), 'the word of its going');
      expect(released()).toBe(1);
      await pause(50);
      // Its next renewal no longer lists the owner; then the owner registers again and says so.
      registries.hold(
        'node_survivor',
        new Map([
          ['node_told', 1],
          ['node_survivor', 1],
        ]),
      );
      await registries.regain('node_owner', 2);
      expect(back).toEqual(['node_owner']);
      expect(survivor.isGone('node_owner')).toBe(false);
      // Sweeps with a listing that does not have the new lease yet take nothing for gone.
      await pause(100);
      expect(survivor.isGone('node_owner')).toBe(false);
      expect(released()).toBe(1);
      // And once its lease really runs out, it is gone again.
      registries.refresh('node_survivor');
      await pause(30);
      await registries.kill('node_owner', 'node_told');
      await until(() => survivor.isGone('node_owner'), 'the word of its second going');
      expect(released()).toBe(2);
    });

    it('is back once listed under a newer epoch, even when its word never came', async () => {
      const { survivor, back } = await stalledOwner();
      await registries.kill('node_owner', 'node_told');
      await until(() => survivor.isGone('node_owner'), 'the word of its going');
      await registries.regain('node_owner', 2, false);
      await until(() => !survivor.isGone('node_owner'), 'the sweep to list it under epoch 2');
      expect(back).toEqual(['node_owner']);
    });

    it('stays back when the word of its going under the old epoch comes after its return', async () => {
      const { told, survivor, back, released } = await stalledOwner();
      await registries.kill('node_owner', 'node_told');
      await until(() => survivor.isGone('node_owner'), 'the word of its going');
      await registries.regain('node_owner', 2);
      expect(back).toEqual(['node_owner']);
      // A late copy of the word of its going under epoch 1 (another survivor's, delayed).
      told.bus.publish('svc.nodes.gone', { node: 'node_owner', epoch: 1 });
      await pause(50);
      expect(survivor.isGone('node_owner')).toBe(false);
      expect(released()).toBe(1);
    });
  });
});
