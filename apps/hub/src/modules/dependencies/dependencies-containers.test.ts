/**
 * Hosts and their containers in the graph, through the route, with fake agents answering `containers.list`:
 * per-caller filtering, a silent host, bounded concurrency and the cache.
 */
import { describe, expect, it } from 'vitest';
import type { AgentRequestResult, DependencyGraph, EngineContainer } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useOperations } from '../../testing/operations-app.js';

const containerHello = { capabilities: ['exec', 'containers'], hostname: 'docker-1' };

function engine(id: string, name: string, state = 'running'): EngineContainer {
  return {
    id,
    name,
    image: 'nginx:1.27',
    state,
    status: state,
    health: null,
    created_at: null,
    ports: [],
    compose_project: null,
    compose_service: null,
  };
}

const listed = (...containers: EngineContainer[]): AgentRequestResult<'containers.list'> => ({
  containers,
  truncated: false,
});

const webId = 'a'.repeat(64);
const dbId = 'b'.repeat(64);
const otherId = 'c'.repeat(64);

describe.each(databaseTargets())('dependencies: containers on hosts ($name)', ({ options }) => {
  const use = useOperations(options);

  it('shows each online container host running its containers, only those the key may see', async () => {
    const { t, ops } = use();
    const one = await t.createAsset({ name: 'docker-one' });
    const two = await t.createAsset({ name: 'docker-two' });
    ops.gateway.connect(one.id, {
      hello: containerHello,
      handlers: { 'containers.list': () => listed(engine(webId, 'web'), engine(dbId, 'db', 'exited')) },
    });
    ops.gateway.connect(two.id, {
      hello: containerHello,
      handlers: { 'containers.list': () => listed(engine(otherId, 'secret-app')) },
    });

    const all = await ops.request('GET', '/api/v2/dependencies');
    expect(all.status).toBe(200);
    const graph = all.json.data as DependencyGraph;
    expect(graph.nodes).toContainEqual({
      id: `${one.id}:${webId}`,
      name: 'web',
      kind: 'container',
      source: 'agent',
      status: 'running',
    });
    expect(graph.nodes).toContainEqual(
      expect.objectContaining({ id: `${one.id}:${dbId}`, status: 'exited' }),
    );
    expect(graph.edges.filter((e) => e.type === 'runs').map((e) => `${e.from}>${e.to}`)).toEqual(
      expect.arrayContaining([`${one.id}>${one.id}:${dbId}`, `${one.id}>${one.id}:${webId}`]),
    );
    expect(graph.edges).toContainEqual({
      from: two.id,
      to: `${two.id}:${otherId}`,
      type: 'runs',
      link_id: null,
      label: null,
    });

    const limited = await t.createKey({
      role: 'viewer',
      scopes: ['topology:read'],
      allowed_assets: [one.id],
    });
    const mine = (await ops.request('GET', '/api/v2/dependencies', { key: limited.raw_key })).json
      .data as DependencyGraph;
    expect(mine.nodes.map((n) => n.id).sort()).toEqual(
      [one.id, `${one.id}:${webId}`, `${one.id}:${dbId}`].sort(),
    );
    expect(mine.nodes.some((n) => n.name === 'secret-app')).toBe(false);
    expect(mine.edges.every((e) => e.from === one.id)).toBe(true);
  });

  it('leaves out the containers of a host that does not answer in time, and keeps the rest', async () => {
    const { t, ops } = use();
    const quiet = await t.createAsset({ name: 'quiet-host' });
    const busy = await t.createAsset({ name: 'busy-host' });
    ops.gateway.connect(quiet.id, {
      hello: containerHello,
      handlers: { 'containers.list': () => new Promise<never>(() => undefined) },
    });
    ops.gateway.connect(busy.id, {
      hello: containerHello,
      handlers: { 'containers.list': () => listed(engine(webId, 'web')) },
    });

    const started = Date.now();
    const res = await ops.request('GET', '/api/v2/dependencies');
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(2_000);
    const graph = res.json.data as DependencyGraph;
    expect(graph.nodes.map((n) => n.id)).toEqual(
      expect.arrayContaining([quiet.id, busy.id, `${busy.id}:${webId}`]),
    );
    expect(graph.nodes.some((n) => n.id.startsWith(`${quiet.id}:`))).toBe(false);
    expect(ops.gateway.callsOf('containers.list').map((c) => c.options.timeoutMs)).toEqual([300, 300]);
  });

  it('asks at most 8 hosts at once and answers from its cache for a while', async () => {
    const { t, ops } = use();
    let inFlight = 0;
    let most = 0;
    const slowList = async () => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight -= 1;
      return listed(engine(webId, 'web'));
    };
    for (let i = 0; i < 12; i++) {
      const host = await t.createAsset({ name: `fleet-${String(i)}` });
      ops.gateway.connect(host.id, { hello: containerHello, handlers: { 'containers.list': slowList } });
    }

    const first = (await ops.request('GET', '/api/v2/dependencies')).json.data as DependencyGraph;
    expect(first.edges.filter((e) => e.type === 'runs')).toHaveLength(12);
    expect(most).toBeLessThanOrEqual(8);
    expect(most).toBeGreaterThan(1);
    await ops.request('GET', '/api/v2/dependencies');
    expect(ops.gateway.callsOf('containers.list')).toHaveLength(12);
  });

  it('authorizes: 401 without a key, 403 without topology:read', async () => {
    const { t, ops } = use();
    expect((await ops.request('GET', '/api/v2/dependencies', { key: 'svc_nope' })).status).toBe(401);
    const wrong = await t.createKey({ scopes: ['container:read'] });
    expect((await ops.request('GET', '/api/v2/dependencies', { key: wrong.raw_key })).status).toBe(403);
  });
});
