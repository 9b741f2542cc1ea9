/**
 * /stacks/assets/{id}/stacks through a hub whose Portainer connector points at the fake, and the inventory of
 * a Portainer with more environments than one page (issue 28 item 5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Asset, ConnectorCheck, StacksStack } from '@svc/protocol';
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

  it('answers 502 and marks the connector unhealthy when an answer breaks the mapping, never 500', async () => {
    const t = use();
    // A date no JavaScript Date can hold: the schema lets the integer through, the mapping throws a RangeError.
    fake.stacks.push({ ...fake.stacks[0]!, Id: 99, Name: 'far-future', CreationDate: 9e15 });
    try {
      const res = await t.request('GET', `/api/v2/stacks/assets/${idOf('local')}/stacks`);
      expect([res.status, res.json.error], res.text).toEqual([502, 'upstream_error']);
      expect(res.json.message).toContain('unexpected answer');
      const connectorId = endpoints[0]?.connector?.connector_id ?? '';
      const connector = await t.request('GET', `/api/v2/connectors/${connectorId}`);
      expect(connector.json.data).toMatchObject({ health: 'error' });
      expect((connector.json.data as { last_error: string }).last_error).toContain('unexpected answer');
    } finally {
      fake.stacks.pop();
    }
  });
});

describe.each(databaseTargets())(
  'a Portainer with more environments than one page ($name)',
  ({ options }) => {
    const use = useTestHub({ ...options, env: connectorTestEnv });
    let big: FakePortainer;
    let connectorId = '';

    beforeAll(async () => {
      big = await startFakePortainer();
      big.endpoints.splice(0, big.endpoints.length);
      for (let id = 1; id <= 150; id += 1) {
        big.endpoints.push({
          Id: id,
          Name: `env-${String(id).padStart(3, '0')}`,
          Type: 2,
          URL: `tcp://10.0.${String(id)}.2:9001`,
          Status: 1,
          runningContainers: id % 7,
          dockerVersion: '27.3.1',
        });
      }
      // Created without waiting for its first check: the test call below is what this suite looks at.
      const created = await use().request('POST', '/api/v2/connectors', {
        body: {
          kind: 'stacks',
          name: 'portainer-150',
          base_url: big.url(),
          credentials: big.apiKey,
          tls_mode: 'pinned_ca',
          tls_ca: big.ca,
        },
      });
      expect(created.status, created.text).toBe(201);
      connectorId = (created.json.data as { id: string }).id;
    });
    afterAll(async () => {
      await big.close();
    });

    async function environments(): Promise<string[]> {
      const list = await use().request('GET', '/api/v2/assets?per_page=500');
      return (list.json.data as Asset[])
        .filter((a) => a.connector?.connector_id === connectorId)
        .map((a) => a.connector?.external_id ?? '')
        .sort();
    }

    const expected = Array.from({ length: 150 }, (_, i) => `endpoint/${String(i + 1)}`).sort();

    it('tests 200 with all 150 environments as assets, twice, without duplicates', async () => {
      const t = use();
      for (let run = 0; run < 2; run += 1) {
        const res = await t.request('POST', `/api/v2/connectors/${connectorId}/test`);
        expect(res.status, res.text).toBe(200);
        expect(res.json.data as ConnectorCheck).toMatchObject({ health: 'ok', error: null, assets: 150 });
        expect(await environments()).toEqual(expected);
      }
      expect((await t.request('GET', `/api/v2/connectors/${connectorId}`)).json.data).toMatchObject({
        health: 'ok',
        asset_count: 150,
      });
    });

    it('an upstream that lists one environment twice is synced once, not a 500', async () => {
      const t = use();
      big.endpoints.splice(100, 0, { ...big.endpoints[99]! });
      try {
        const res = await t.request('POST', `/api/v2/connectors/${connectorId}/test`);
        expect(res.status, res.text).toBe(200);
        expect(res.json.data as ConnectorCheck).toMatchObject({ health: 'ok', assets: 150 });
        expect(await environments()).toEqual(expected);
      } finally {
        big.endpoints.splice(100, 1);
      }
    });
  },
);
