/**
 * /homeauto/assets/{id}/… through a hub whose Home Assistant connector points at the fake: entities, one
 * entity, service calls (validated, audited, gated by policy.connector_enabled), and who may do what
 * (homeauto:read vs homeauto:write, viewers, allowed_assets).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HomeautoEntity, HomeautoServiceResult } from '@svc/protocol';
import { databaseTargets, startFakeHomeAssistant, type FakeHomeAssistant } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { addConnector, connectorTestEnv } from '../../testing/connector-hub.js';

let fake: FakeHomeAssistant;
beforeAll(async () => {
  fake = await startFakeHomeAssistant();
});
afterAll(async () => {
  await fake.close();
});

describe.each(databaseTargets())('home automation routes ($name)', ({ options }) => {
  const use = useTestHub({ ...options, env: connectorTestEnv });
  let homeId = '';
  let otherId = '';

  beforeAll(async () => {
    const t = use();
    const { assets } = await addConnector(t, 'homeauto', fake, fake.token);
    homeId = assets[0]?.id ?? '';
    otherId = (await t.createAsset({ name: 'plain' })).id;
  });

  const base = () => `/api/v2/homeauto/assets/${homeId}`;

  it('lists entities by domain, and reads one', async () => {
    const t = use();
    const lights = await t.request('GET', `${base()}/entities?domain=light`);
    expect(lights.status).toBe(200);
    expect((lights.json.data as HomeautoEntity[]).map((e) => [e.entity_id, e.state])).toEqual([
      ['light.kitchen', expect.any(String)],
      ['light.living_room', expect.any(String)],
    ]);
    const one = await t.request('GET', `${base()}/entities/sensor.rack_temperature`);
    expect(one.json.data).toMatchObject({ state: '27.5', unit: '°C', controllable: false });
    expect((await t.request('GET', `${base()}/entities/sensor.nothing_here`)).status).toBe(404);
    expect((await t.request('GET', `${base()}/entities/Not-An-Entity`)).status).toBe(400);
  });

  it('turns a light on, audited, answering its new state', async () => {
    const t = use();
    fake.states.set('light.kitchen', { ...fake.states.get('light.kitchen')!, state: 'off' });
    const res = await t.request('POST', `${base()}/services/light/turn_on`, {
      body: { entity_id: ['light.kitchen'], data: { brightness_pct: 30 } },
    });
    expect(res.status).toBe(200);
    expect(res.json.data as HomeautoServiceResult).toMatchObject({
      service: 'light.turn_on',
      entities: [{ entity_id: 'light.kitchen', state: 'on' }],
    });
    expect(fake.serviceCalls.at(-1)).toEqual({
      service: 'light.turn_on',
      data: { brightness_pct: 30, entity_id: ['light.kitchen'] },
    });
    const audit = await t.request('GET', `/api/v2/audit/events?action=homeauto.service_call`);
    expect(JSON.stringify(audit.json.data)).toContain('light.kitchen');
  });

  it('answers 404 naming an entity Home Assistant does not know, sending nothing', async () => {
    const t = use();
    const before = fake.serviceCalls.length;
    const res = await t.request('POST', `${base()}/services/light/turn_on`, {
      body: { entity_id: ['light.kitchen', 'light.nowhere'] },
    });
    expect([res.status, res.json.error], res.text).toEqual([404, 'not_found']);
    expect(res.json.message).toContain('light.nowhere');
    expect(res.json.message).not.toContain('light.kitchen');
    expect(fake.serviceCalls.length).toBe(before);
  });

  it.each([
    [
      'a domain that is not a device',
      '/services/homeassistant/restart',
      { entity_id: ['light.kitchen'] },
      'domain',
    ],
    ['a shell command', '/services/shell_command/run', { entity_id: ['shell_command.run'] }, 'domain'],
    [
      'an entity of another domain',
      '/services/light/turn_on',
      { entity_id: ['lock.front_door'] },
      'entity_id',
    ],
    [
      'retargeting data',
      '/services/light/turn_on',
      { entity_id: ['light.kitchen'], data: { area_id: 'all' } },
      'data.area_id',
    ],
    ['a malformed service', '/services/light/Turn-On', { entity_id: ['light.kitchen'] }, 'service'],
    ['no entity', '/services/light/turn_on', { entity_id: [] }, 'entity_id'],
  ])('refuses %s with 400 naming the field, sending nothing', async (_name, path, body, field) => {
    const t = use();
    const before = fake.serviceCalls.length;
    const res = await t.request('POST', `${base()}${path}`, { body });
    expect([res.status, res.json.error]).toEqual([400, 'validation']);
    expect(JSON.stringify(res.json)).toContain(field);
    expect(fake.serviceCalls.length).toBe(before);
  });

  it('applies homeauto:read vs homeauto:write, the viewer rule and allowed_assets', async () => {
    const t = use();
    const read = `${base()}/entities`;
    const call = `${base()}/services/switch/toggle`;
    const body = { body: { entity_id: ['switch.rack_fan'] } };
    expect((await t.request('GET', read, { key: null })).status).toBe(401);
    expect((await t.request('POST', call, { ...body, key: null })).status).toBe(401);

    const connectorsOnly = await t.createKey({
      role: 'operator',
      scopes: ['connectors:read', 'connectors:write'],
    });
    expect((await t.request('GET', read, { key: connectorsOnly.raw_key })).status).toBe(403);

    const reader = await t.createKey({ role: 'operator', scopes: ['homeauto:read'] });
    expect((await t.request('GET', read, { key: reader.raw_key })).status).toBe(200);
    expect((await t.request('POST', call, { ...body, key: reader.raw_key })).json.error).toBe(
      'insufficient_scope',
    );

    const viewer = await t.createKey({ role: 'viewer', scopes: ['homeauto:read', 'homeauto:write'] });
    expect((await t.request('GET', read, { key: viewer.raw_key })).status).toBe(200);
    expect((await t.request('POST', call, { ...body, key: viewer.raw_key })).json.error).toBe(
      'read_only_role',
    );

    const elsewhere = await t.createKey({
      role: 'operator',
      scopes: ['homeauto:*'],
      allowed_assets: [otherId],
    });
    expect((await t.request('GET', read, { key: elsewhere.raw_key })).status).toBe(404);
    expect((await t.request('POST', call, { ...body, key: elsewhere.raw_key })).status).toBe(404);

    const writer = await t.createKey({
      role: 'operator',
      scopes: ['homeauto:write'],
      allowed_assets: [homeId],
    });
    expect((await t.request('POST', call, { ...body, key: writer.raw_key })).status).toBe(200);
  });

  it('refuses service calls at once while policy.connector_enabled is off; reads still work', async () => {
    const t = use();
    await t.request('PATCH', '/api/settings/runtime', { body: { 'policy.connector_enabled': false } });
    try {
      const before = fake.serviceCalls.length;
      const res = await t.request('POST', `${base()}/services/switch/toggle`, {
        body: { entity_id: ['switch.rack_fan'] },
      });
      expect(res.status).toBe(403);
      expect(fake.serviceCalls.length).toBe(before);
      expect((await t.request('GET', `${base()}/entities`)).status).toBe(200);
    } finally {
      await t.request('PATCH', '/api/settings/runtime', { body: { 'policy.connector_enabled': true } });
    }
  });

  it('answers 409 on an asset no Home Assistant brought, and 502 when Home Assistant fails', async () => {
    const t = use();
    expect((await t.request('GET', `/api/v2/homeauto/assets/${otherId}/entities`)).status).toBe(409);
    fake.fail('malformed');
    try {
      const res = await t.request('GET', `${base()}/entities`);
      expect([res.status, res.json.error]).toEqual([502, 'upstream_error']);
    } finally {
      fake.fail(null);
    }
  });
});
