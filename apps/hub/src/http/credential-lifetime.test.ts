import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '@svc/testkit';
import { ManualClock } from '../platform/clock.js';
import { createMemoryClusterNetwork } from '../platform/cluster/cluster-bus.js';
import { createInProcessEventBus } from '../platform/event-bus.js';
import { localOwnerContext } from '../modules/users/owner-bootstrap.js';
import type { Principal } from '../access/principal.js';
import { createCredentialLifetime, type CredentialEnd, type Scheduler } from './credential-lifetime.js';

/** Timers fired by hand: what is armed, for how long, and whether it was cancelled. */
function fakeScheduler() {
  const armed: { ms: number; run: () => void; cancelled: boolean }[] = [];
  const schedule: Scheduler = (ms, run) => {
    const entry = { ms, run, cancelled: false };
    armed.push(entry);
    return () => {
      entry.cancelled = true;
    };
  };
  return { armed, schedule };
}

describe('credential lifetime: an open stream learns that its key died', () => {
  const start = new Date('2026-11-25T12:00:00.000Z');

  function rig() {
    const clock = new ManualClock(start);
    const events = createInProcessEventBus({ clock });
    const timers = fakeScheduler();
    const lifetime = createCredentialLifetime({ events, clock, schedule: timers.schedule });
    return { clock, events, timers, lifetime };
  }

  it('api_key.deleted for the watched key ends it once; other keys and unsubscribed watches are not told', () => {
    const { events, lifetime } = rig();
    const ends: string[] = [];
    lifetime.onCredentialEnded({ id: 'key_a', name: 'a', expiresAt: null }, (end) => ends.push(`a:${end}`));
    const stopB = lifetime.onCredentialEnded({ id: 'key_b', name: 'b', expiresAt: null }, (end) =>
      ends.push(`b:${end}`),
    );
    stopB();
    events.publish('api_key.deleted', { asset_ids: [], key_id: 'key_other', name: 'k' });
    expect(ends).toEqual([]);
    events.publish('api_key.deleted', { asset_ids: [], key_id: 'key_a', name: 'k' });
    events.publish('api_key.deleted', { asset_ids: [], key_id: 'key_a', name: 'k' });
    events.publish('api_key.deleted', { asset_ids: [], key_id: 'key_b', name: 'k' });
    expect(ends).toEqual(['a:revoked']);
  });

  it('a key with expires_at ends as expired when its timer fires at or after the expiry', () => {
    const { clock, timers, lifetime } = rig();
    const ends: CredentialEnd[] = [];
    lifetime.onCredentialEnded(
      { id: 'key_a', name: 'a', expiresAt: new Date(start.getTime() + 60_000).toISOString() },
      (end) => ends.push(end),
    );
    expect(timers.armed.map((t) => t.ms)).toEqual([60_000]);
    // A timer that fires early (clock drift) re-arms instead of ending the key.
    clock.advance(30_000);
    timers.armed[0]?.run();
    expect(ends).toEqual([]);
    expect(timers.armed[1]?.ms).toBe(30_000);
    clock.advance(30_000);
    timers.armed[1]?.run();
    expect(ends).toEqual(['expired']);
  });

  it('stopping a watch and closing cancel its expiry timer', () => {
    const { timers, lifetime } = rig();
    const later = new Date(start.getTime() + 60_000).toISOString();
    const stop = lifetime.onCredentialEnded({ id: 'key_a', name: 'a', expiresAt: later }, () => undefined);
    lifetime.onCredentialEnded({ id: 'key_b', name: 'b', expiresAt: later }, () => undefined);
    stop();
    expect(timers.armed[0]?.cancelled).toBe(true);
    lifetime.close();
    expect(timers.armed[1]?.cancelled).toBe(true);
  });
});

describe('credential lifetime: a changed key hands its connections what it is now (decision 0049)', () => {
  const start = new Date('2026-11-25T12:00:00.000Z');
  const principalOf = (scopes: string[], expiresAt: string | null = null): Principal => ({
    authType: 'api_key',
    userId: null,
    role: 'operator',
    scopes,
    key: { id: 'key_a', name: 'a', expiresAt },
    allowedAssets: null,
  });

  /** A lifetime whose key reads answer when the test says, in the order it says. */
  function rig() {
    const clock = new ManualClock(start);
    const events = createInProcessEventBus({ clock });
    const timers = fakeScheduler();
    const reads: ((principal: Principal | null) => void)[] = [];
    const lifetime = createCredentialLifetime({
      events,
      clock,
      schedule: timers.schedule,
      resolveKey: () =>
        new Promise((resolve) => {
          reads.push(resolve);
        }),
    });
    const changed = () => {
      events.publish('api_key.updated', { asset_ids: [], key_id: 'key_a', name: 'a', fields: ['scopes'] });
    };
    return { timers, reads, lifetime, changed, events };
  }

  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it('a read that a later change overtook is dropped: the older grant never lands after the newer', async () => {
    const { reads, lifetime, changed } = rig();
    const seen: string[][] = [];
    lifetime.onCredentialEnded(
      { id: 'key_a', name: 'a', expiresAt: null },
      () => undefined,
      (next) => seen.push([...(next.scopes ?? [])]),
    );
    changed();
    changed();
    reads[1]?.(principalOf(['assets:read']));
    reads[0]?.(principalOf(['assets:read', 'assets:exec']));
    await settle();
    expect(seen).toEqual([['assets:read']]);
    // Applied at once by the process that changed it: newer than a read still under way.
    changed();
    lifetime.keyChanged(principalOf([]));
    reads[2]?.(principalOf(['*']));
    await settle();
    expect(seen).toEqual([['assets:read'], []]);
  });

  it("a user's role change reads their keys again: what a key holds open acts with the user's new role", async () => {
    const { reads, lifetime, events } = rig();
    const seen: string[] = [];
    lifetime.onCredentialEnded(
      { id: 'key_a', name: 'a', expiresAt: null },
      () => undefined,
      (next) => seen.push(next.role),
    );
    expect(reads).toHaveLength(0);
    events.publish('user.updated', { asset_ids: [], user_id: 'user_a', change: 'role' });
    expect(reads).toHaveLength(1);
    reads[0]?.({ ...principalOf(['*']), role: 'viewer' });
    await settle();
    expect(seen).toEqual(['viewer']);
  });

  it('a key gone when read again ends as revoked; a moved expiry re-arms the timer', async () => {
    const { timers, reads, lifetime, changed } = rig();
    const ends: CredentialEnd[] = [];
    lifetime.onCredentialEnded({ id: 'key_a', name: 'a', expiresAt: null }, (end) => ends.push(end));
    expect(timers.armed).toEqual([]);
    lifetime.keyChanged(principalOf([], new Date(start.getTime() + 60_000).toISOString()));
    expect(timers.armed.map((t) => t.ms)).toEqual([60_000]);
    changed();
    reads[0]?.(null);
    await settle();
    expect(ends).toEqual(['revoked']);
    expect(timers.armed[0]?.cancelled).toBe(true);
  });
});

describe('revocation and rotation publish api_key.deleted (through a real hub)', () => {
  let t: TestHub | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it('a key revoked through the API ends the streams watching it; so does an owner-token rotation', async () => {
    t = await startTestHub();
    const hub = t.hub;
    const made = await t.createKey({ role: 'viewer', scopes: ['events:subscribe'] });
    const principal = await hub.services.apiKeys.authenticate(made.raw_key);
    const ownerPrincipal = await hub.services.apiKeys.authenticate(t.ownerKey);
    if (!principal?.key || !ownerPrincipal?.key) throw new Error('keys did not authenticate');
    const ends: string[] = [];
    hub.credentials.onCredentialEnded(principal.key, (end) => ends.push(`viewer:${end}`));
    hub.credentials.onCredentialEnded(ownerPrincipal.key, (end) => ends.push(`owner:${end}`));

    expect((await t.request('DELETE', `/api/v2/keys/${made.id}`)).status).toBe(200);
    expect(ends).toEqual(['viewer:revoked']);

    await hub.services.apiKeys.rotateOwnerToken(await localOwnerContext(hub.database.db));
    expect(ends).toEqual(['viewer:revoked', 'owner:revoked']);
  });
});

describe('credential lifetime across hub processes', () => {
  it('a session signed out on one process ends its streams on the others', async () => {
    const network = createMemoryClusterNetwork();
    const clock = new ManualClock();
    const [a, b] = [network.join(), network.join()].map((bus) =>
      createCredentialLifetime({ events: createInProcessEventBus({ clock }), clock, bus }),
    ) as [ReturnType<typeof createCredentialLifetime>, ReturnType<typeof createCredentialLifetime>];
    const ends: string[] = [];
    const session = { id: 'ses_1', userId: 'usr_1', expiresAt: null };
    b.onSessionEnded(session, (end) => ends.push(`b:${end}`));
    b.onSessionEnded({ ...session, id: 'ses_2' }, (end) => ends.push(`b2:${end}`));
    a.endSession('ses_1');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ends).toEqual(['b:revoked']);
  });

  it('ignores what is not a session id', async () => {
    const network = createMemoryClusterNetwork();
    const forger = network.join();
    const clock = new ManualClock();
    const lifetime = createCredentialLifetime({
      events: createInProcessEventBus({ clock }),
      clock,
      bus: network.join(),
    });
    const ends: string[] = [];
    lifetime.onSessionEnded({ id: 'ses_1', userId: null, expiresAt: null }, (end) => ends.push(end));
    for (const data of [null, 'ses_1', { session_id: 5 }, { session_id: 'x'.repeat(500) }]) {
      forger.publish('svc.sessions.ended', data);
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(ends).toEqual([]);
  });
});
