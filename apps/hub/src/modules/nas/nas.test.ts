/**
 * /nas/assets/{id}/pools and /datasets through a hub whose TrueNAS connector points at the fake: what each
 * caller gets (the authorization matrix, allowed_assets), paging, and an upstream failure as 502.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NasDataset, NasPool } from '@svc/protocol';
import { databaseTargets, startFakeTruenas, type FakeTruenas } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { addConnector, connectorTestEnv } from '../../testing/connector-hub.js';

let fake: FakeTruenas;
beforeAll(async () => {
  fake = await startFakeTruenas();
});
afterAll(async () => {
  await fake.close();
});

describe.each(databaseTargets())('NAS routes ($name)', ({ options }) => {
  const use = useTestHub({ ...options, env: connectorTestEnv });
  let nasId = '';
  let otherId = '';

  beforeAll(async () => {
    const t = use();
    const { assets } = await addConnector(t, 'nas', fake, fake.apiKey);
    nasId = assets[0]?.id ?? '';
    otherId = (await t.createAsset({ name: 'plain' })).id;
  });

  it('lists pools and datasets with sizes in bytes', async () => {
    const t = use();
    const pools = await t.request('GET', `/api/v2/nas/assets/${nasId}/pools`);
    expect(pools.status).toBe(200);
    expect((pools.json.data as NasPool[]).map((p) => [p.name, p.healthy, p.free_bytes])).toEqual([
      ['backup', false, 0.5e12],
      ['tank', true, 5e12],
    ]);
    const datasets = await t.request(
      'GET',
      `/api/v2/nas/assets/${nasId}/datasets?pool=tank&per_page=2&page=2`,
    );
    expect(datasets.json.meta).toEqual({ total: 4, page: 2, per_page: 2 });
    expect((datasets.json.data as NasDataset[]).map((d) => d.id)).toEqual(['tank/media', 'tank/vm-disk']);
  });

  it('answers by asset: 404 for an unknown one, 409 for an asset no TrueNAS brought', async () => {
    const t = use();
    expect((await t.request('GET', '/api/v2/nas/assets/ast_01JDNOPE0000000000000000/pools')).status).toBe(
      404,
    );
    const plain = await t.request('GET', `/api/v2/nas/assets/${otherId}/pools`);
    expect([plain.status, plain.json.error]).toEqual([409, 'conflict']);
  });

  it('applies the authorization matrix and allowed_assets', async () => {
    const t = use();
    const path = `/api/v2/nas/assets/${nasId}/datasets`;
    expect((await t.request('GET', path, { key: null })).status).toBe(401);
    const wrongScope = await t.createKey({ role: 'operator', scopes: ['assets:read'] });
    expect((await t.request('GET', path, { key: wrongScope.raw_key })).status).toBe(403);
    const viewer = await t.createKey({ role: 'viewer', scopes: ['connectors:read'] });
    expect((await t.request('GET', path, { key: viewer.raw_key })).status).toBe(200);
    const elsewhere = await t.createKey({
      role: 'operator',
      scopes: ['connectors:read'],
      allowed_assets: [otherId],
    });
    expect((await t.request('GET', path, { key: elsewhere.raw_key })).status).toBe(404);
    const here = await t.createKey({
      role: 'operator',
      scopes: ['connectors:read'],
      allowed_assets: [nasId],
    });
    expect((await t.request('GET', path, { key: here.raw_key })).status).toBe(200);
  });

  it('reaches TrueNAS over its WebSocket with a pinned fingerprint, and refuses a wrong one', async () => {
    const t = use();
    const outcome = async (fingerprint: string) => {
      const created = await t.request('POST', '/api/v2/connectors', {
        body: {
          kind: 'nas',
          name: `pinned ${fingerprint.slice(0, 6)}`,
          base_url: fake.url(),
          credentials: fake.apiKey,
          tls_mode: 'fingerprint',
          tls_fingerprint: fingerprint,
          enabled: false,
        },
      });
      const id = (created.json.data as { id: string }).id;
      const checked = await t.request('POST', `/api/v2/connectors/${id}/test`);
      return checked.json.data as { health: string; error: string | null };
    };
    const calls = fake.calls.length;
    expect(await outcome(fake.fingerprint)).toMatchObject({ health: 'ok', error: null });
    expect(fake.calls.slice(calls)).toContain('pool.query');
    const wrong = await outcome('00'.repeat(32));
    expect(wrong.health).toBe('error');
    expect(wrong.error).toMatch(/fingerprint/);
  });

  it('answers 502 upstream_error with the reason when TrueNAS fails', async () => {
    const t = use();
    fake.fail('server_error');
    try {
      const res = await t.request('GET', `/api/v2/nas/assets/${nasId}/pools`);
      expect([res.status, res.json.error]).toEqual([502, 'upstream_error']);
      expect(res.json.message).toMatch(/nas fake/);
    } finally {
      fake.fail(null);
    }
  });
});
