import { describe, expect, it } from 'vitest';
import type { ConnectedAgent } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useOperations } from '../../testing/operations-app.js';

describe.each(databaseTargets())('/hub/agents ($name)', ({ options }) => {
  const use = useOperations(options);

  it('lists connected agents with their asset names, sorted by name and paged', async () => {
    const { t, ops } = use();
    const zeta = await t.createAsset({ name: 'zeta' });
    const alpha = await t.createAsset({ name: 'alpha' });
    await t.createAsset({ name: 'not-connected' });
    const connectedAt = new Date('2026-11-23T11:00:00.000Z');
    ops.gateway.connect(zeta.id, {
      connectedAt,
      remoteAddress: '10.0.0.9',
      hello: { hostname: 'zeta.lan', platform: 'linux', agent_version: '1.2.3', low_power: true },
    });
    ops.gateway.connect(alpha.id, { hello: { hostname: 'alpha.lan', platform: 'freebsd' } });
    // An agent whose asset was just deleted has nothing to show.
    ops.gateway.connect('ast_00000000000000000000000000');

    const first = await ops.request('GET', '/api/v2/hub/agents?per_page=1');
    const second = await ops.request('GET', '/api/v2/hub/agents?per_page=1&page=2');

    expect(first.status).toBe(200);
    expect(first.json.meta).toEqual({ total: 2, page: 1, per_page: 1 });
    expect((first.json.data as ConnectedAgent[]).map((a) => a.name)).toEqual(['alpha']);
    expect(second.json.data).toEqual([
      {
        asset_id: zeta.id,
        name: 'zeta',
        hostname: 'zeta.lan',
        platform: 'linux',
        agent_version: '1.2.3',
        connected_at: connectedAt.toISOString(),
        last_seen_at: connectedAt.toISOString(),
        remote_address: '10.0.0.9',
        low_power: true,
        metrics: { accepted: 0, over_budget: 0, duplicate: 0, out_of_window: 0 },
      },
    ]);
  });

  it('shows a restricted key only its own agents, and needs hub:read', async () => {
    const { t, ops } = use();
    const mine = await t.createAsset({ name: 'mine' });
    const other = await t.createAsset({ name: 'other' });
    ops.gateway.connect(mine.id);
    ops.gateway.connect(other.id);
    const key = await t.createKey({ role: 'viewer', scopes: ['hub:read'], allowed_assets: [mine.id] });
    const noScope = await t.createKey({ role: 'viewer', scopes: ['assets:read'] });

    const res = await ops.request('GET', '/api/v2/hub/agents', { key: key.raw_key });
    const refused = await ops.request('GET', '/api/v2/hub/agents', { key: noScope.raw_key });

    expect((res.json.data as ConnectedAgent[]).map((a) => a.asset_id)).toEqual([mine.id]);
    expect(res.json.meta).toMatchObject({ total: 1 });
    expect(refused.status).toBe(403);
  });
});
