/** The Home Assistant client against the fake Home Assistant: states, one entity, service calls, failures. */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeHomeAssistant, type FakeHomeAssistant } from '@svc/testkit';
import { UpstreamError } from '../base/upstream-error.js';
import { upstreamContextFor } from '../../testing/fake-upstream-context.js';
import {
  callHomeautoService,
  homeautoDriver,
  homeautoEntities,
  homeautoEntity,
  unknownHomeautoEntities,
} from './homeauto.connector.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

async function start(slowMs?: number): Promise<FakeHomeAssistant> {
  const fake = await startFakeHomeAssistant(slowMs ? { slowMs } : {});
  closers.push(() => fake.close());
  return fake;
}

function contextOf(fake: FakeHomeAssistant, over: { credentials?: string; timeoutMs?: number } = {}) {
  const ctx = upstreamContextFor(
    fake,
    { kind: 'homeauto', credentials: over.credentials ?? fake.token },
    over.timeoutMs ? { timeoutMs: over.timeoutMs } : {},
  );
  closers.push(() => ctx.client.close());
  return ctx;
}

async function failure(work: Promise<unknown>): Promise<UpstreamError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(error)}`);
  return error;
}

describe('Home Assistant client', () => {
  it('names the entities Home Assistant does not know (a service call on them answers 200 [])', async () => {
    const fake = await start();
    const ctx = contextOf(fake);
    expect(await unknownHomeautoEntities(ctx, ['light.kitchen', 'light.nowhere', 'switch.gone'])).toEqual([
      'light.nowhere',
      'switch.gone',
    ]);
    expect(await callHomeautoService(ctx, 'light', 'turn_on', ['light.nowhere'], {})).toEqual([]);
  });

  it('checks the API and names the instance after its location', async () => {
    const fake = await start();
    const ctx = contextOf(fake);
    await homeautoDriver.check(ctx);
    expect(await homeautoDriver.inventory(ctx)).toEqual([
      expect.objectContaining({ externalId: 'instance', kind: 'homeauto', name: 'Home', status: 'online' }),
    ]);
    expect(fake.requests.every((r) => r.headers.authorization === `Bearer ${fake.token}`)).toBe(true);
  });

  it('lists entities with text states, by domain', async () => {
    const fake = await start();
    const ctx = contextOf(fake);
    const all = await homeautoEntities(ctx);
    expect(all.find((e) => e.entity_id === 'sensor.rack_temperature')).toMatchObject({
      state: '27.5',
      unit: '°C',
      controllable: false,
    });
    expect((await homeautoEntities(ctx, 'light')).map((e) => e.entity_id)).toEqual([
      'light.kitchen',
      'light.living_room',
    ]);
  });

  it('reads one entity by its path, and null for one Home Assistant does not know', async () => {
    const fake = await start();
    const ctx = contextOf(fake);
    expect(await homeautoEntity(ctx, 'switch.rack_fan')).toMatchObject({ state: 'on', name: 'Rack fan' });
    expect(await homeautoEntity(ctx, 'switch.nothing')).toBeNull();
  });

  it('calls a service and answers the targeted entities only, read again when not reported', async () => {
    const fake = await start();
    const ctx = contextOf(fake);
    const entities = await callHomeautoService(
      ctx,
      'light',
      'turn_on',
      ['light.kitchen', 'light.living_room'],
      {
        brightness_pct: 40,
      },
    );
    expect(entities.map((e) => [e.entity_id, e.state])).toEqual([
      ['light.kitchen', 'on'],
      ['light.living_room', 'on'],
    ]);
    expect(fake.serviceCalls).toEqual([
      {
        service: 'light.turn_on',
        data: { brightness_pct: 40, entity_id: ['light.kitchen', 'light.living_room'] },
      },
    ]);
  });

  it("passes on Home Assistant's text errors", async () => {
    const fake = await start();
    const refused = await failure(homeautoEntities(contextOf(fake, { credentials: 'wrong' })));
    expect([refused.status, refused.message]).toEqual([401, expect.stringContaining('401: Unauthorized')]);
    const unknown = await failure(
      callHomeautoService(contextOf(fake), 'light', 'explode', ['light.kitchen'], {}),
    );
    expect(unknown.status).toBe(400);
  });

  it.each([
    ['unauthorized', 'http', 401],
    ['server_error', 'http', 500],
    ['malformed', 'malformed', null],
  ] as const)('reports the %s failure mode', async (mode, kind, status) => {
    const fake = await start();
    fake.fail(mode);
    const error = await failure(homeautoEntities(contextOf(fake)));
    expect(error.failure).toBe(kind);
    if (status !== null) expect(error.status).toBe(status);
  });

  it('gives up on a slow answer at the timeout, and refuses an unknown CA', async () => {
    const fake = await start(5_000);
    fake.fail('slow');
    expect((await failure(homeautoEntities(contextOf(fake, { timeoutMs: 300 })))).failure).toBe('timeout');
    fake.fail('unknown_ca');
    expect((await failure(homeautoEntities(contextOf(fake)))).failure).toBe('tls');
  });
});
