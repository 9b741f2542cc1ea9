/** /stacks/assets/{id}/stacks through a hub whose Portainer connector points at the fake. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Asset, StacksStack } from '@svc/protocol';
import { databaseTargets, startFakePortainer, type FakePortainer } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { addConnector, connectorTestEnv } from '../../testing/connector-hub.js';

let fake: FakePortainer;
beforeAll(async () => {
  fake = await startFakePortainer();
});
afterAll(async () => {
  await fake.close();
});

describe.each(databaseTargets())('stacks routes ($name)', ({ options }) => {
  const use = useTestHub({ ...options, env: connectorTestEnv });
  let endpoints: Asset[] = [];

  beforeAll(async () => {
    endpoints = (await addConnector(use(), 'stacks', fake, fake.apiKey)).assets;
  });

  const idOf = (name: string) => endpoints.find((a) => a.name === name)?.id ?? '';

  it('brings each Portainer endpoint as an asset with its status', () => {
    expect(endpoints.map((a) => [a.name, a.status, a.source, a.connector?.external_id])).toEqual([
      ['edge-pi', 'offline', 'connector', 'endpoint/3'],
      ['local', 'online', 'connector', 'endpoint/1'],
    ]);
  });

  it('lists the stacks of one endpoint only', async () => {
    const t = use();
    const local = await t.request('GET', `/api/v2/stacks/assets/${idOf('local')}/stacks`);
    expect((local.json.data as StacksStack[]).map((s) => s.name)).toEqual(['media', 'monitoring']);
    const edge = await t.request('GET', `/api/v2/stacks/assets/${idOf('edge-pi')}/stacks?per_page=1`);
    expect(edge.json.meta?.total).toBe(1);
    expect((edge.json.data as StacksStack[])[0]).toMatchObject({
      name: 'pihole',
      env_count: 0,
      updated_at: null,
    });
  });

  it('applies the authorization matrix and allowed_assets', async () => {
    const t = use();
    const path = `/api/v2/stacks/assets/${idOf('local')}/stacks`;
    expect((await t.request('GET', path, { key: null })).status).toBe(401);
    const wrongScope = await t.createKey({ role: 'operator', scopes: ['container:read'] });
    expect((await t.request('GET', path, { key: wrongScope.raw_key })).status).toBe(403);
    const elsewhere = await t.createKey({
      role: 'viewer',
      scopes: ['connectors:read'],
      allowed_assets: [idOf('edge-pi')],
    });
    expect((await t.request('GET', path, { key: elsewhere.raw_key })).status).toBe(404);
    const viewer = await t.createKey({ role: 'viewer', scopes: ['connectors:read'] });
    expect((await t.request('GET', path, { key: viewer.raw_key })).status).toBe(200);
  });

  it("answers 502 with Portainer's message when it refuses the key", async () => {
    const t = use();
    fake.fail('unauthorized');
    try {
      const res = await t.request('GET', `/api/v2/stacks/assets/${idOf('local')}/stacks`);
      expect([res.status, res.json.error]).toEqual([502, 'upstream_error']);
      expect(res.json.message).toMatch(/401/);
    } finally {
      fake.fail(null);
    }
  });
});
