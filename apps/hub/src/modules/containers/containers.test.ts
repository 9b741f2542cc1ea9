import { describe, expect, it } from 'vitest';
import type { AgentRequestResult, EngineContainer } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { systemOwnerContext } from '../../access/principal.js';
import { AgentReplyError } from '../../agents/agent-gateway.js';
import type { FakeHandlers } from '../../testing/fake-gateway.js';
import { useOperations } from '../../testing/operations-app.js';
import { splitCompoundId } from './containers.service.js';

const webId = 'a'.repeat(64);
const dbId = 'b'.repeat(64);
const loneId = 'c'.repeat(64);

function engineContainer(over: Partial<EngineContainer>): EngineContainer {
  return {
    id: webId,
    name: 'web',
    image: 'nginx:1.27',
    state: 'running',
    status: 'Up 2 minutes (healthy)',
    health: 'healthy',
    created_at: '2026-11-25T10:00:00.000Z',
    ports: [{ private_port: 80, public_port: 8080, ip: '0.0.0.0', type: 'tcp' }],
    compose_project: 'shop',
    compose_service: 'web',
    ...over,
  };
}

const listed: AgentRequestResult<'containers.list'> = {
  containers: [
    engineContainer({}),
    engineContainer({
      id: dbId,
      name: 'db',
      image: 'postgres:17',
      state: 'exited',
      status: 'Exited (0) 1 hour ago',
      health: null,
      ports: [],
      compose_service: 'db',
    }),
    engineContainer({ id: loneId, name: 'lone', compose_project: null, compose_service: null, health: null }),
  ],
  truncated: false,
};

function engineHandlers(): FakeHandlers {
  const states = new Map<string, string>([
    [webId, 'running'],
    [dbId, 'exited'],
  ]);
  return {
    'containers.list': () => listed,
    'containers.action': ({ id, action }) => {
      const before = states.get(id) ?? 'running';
      const after = action === 'stop' ? 'exited' : 'running';
      states.set(id, after);
      return {
        id,
        name: id === webId ? 'web' : 'other',
        state: after,
        changed: action === 'restart' || before !== after,
      };
    },
    'containers.logs': ({ id, tail }) => ({
      id,
      tty: false,
      entries: [
        { stream: 'stdout', text: `last ${tail}` },
        { stream: 'stderr', text: 'warn' },
      ],
      truncated: false,
    }),
    'containers.images': () => ({
      images: [
        { id: 'sha256:2', tags: ['zeta:1'], size_bytes: 10, created_at: null, containers: 0 },
        { id: 'sha256:1', tags: ['alpha:1'], size_bytes: 20, created_at: null, containers: 1 },
      ],
      truncated: false,
    }),
    'containers.volumes': () => ({
      volumes: [
        { name: 'zz', driver: 'local', mountpoint: '/v/zz', created_at: null, compose_project: null },
        { name: 'data', driver: 'local', mountpoint: '/v/data', created_at: null, compose_project: 'shop' },
      ],
      truncated: false,
    }),
  };
}

const containerHello = {
  capabilities: ['exec', 'files', 'containers'],
  hostname: 'docker-1',
};

async function auditOf(t: TestHub, assetId: string) {
  const rows = await t.hub.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('asset_id', '=', assetId)
    .where('action', 'like', 'container.%')
    .orderBy('id')
    .execute();
  return rows.map((r) => [r.action, r.target_id]);
}

describe('container ids', () => {
  it('splits <asset id>:<engine id> and checks the engine part strictly', () => {
    expect(splitCompoundId(`ast_1:${webId}`)).toEqual({ assetId: 'ast_1', ref: webId });
    expect(splitCompoundId('ast_1:my_app-1.web')).toEqual({ assetId: 'ast_1', ref: 'my_app-1.web' });
    for (const bad of ['ast_1', 'ast_1:', 'ast_1:-x', 'ast_1:a/b', 'ast_1:a:b', `ast_1:${'x'.repeat(129)}`]) {
      expect(() => splitCompoundId(bad), bad).toThrow(/id: must be/);
    }
  });
});

describe.each(databaseTargets())('containers ($name)', ({ options }) => {
  const use = useOperations(options);

  it('lists the hosts whose agent reached an engine, only those the key may see', async () => {
    const { t, ops } = use();
    const docker = await t.createAsset({ name: 'docker-host' });
    const plain = await t.createAsset({ name: 'plain-host' });
    const hidden = await t.createAsset({ name: 'hidden-docker' });
    ops.gateway.connect(docker.id, { hello: containerHello });
    ops.gateway.connect(plain.id);
    ops.gateway.connect(hidden.id, { hello: containerHello });
    const limited = await t.createKey({
      scopes: ['container:read'],
      allowed_assets: [docker.id, plain.id],
    });

    const all = await ops.request('GET', '/api/v2/container/hosts');
    const mine = await ops.request('GET', '/api/v2/container/hosts', { key: limited.raw_key });

    const ids = (res: typeof all) => (res.json.data as { asset_id: string }[]).map((h) => h.asset_id);
    expect(ids(all)).toEqual(expect.arrayContaining([docker.id, hidden.id]));
    expect(ids(all)).not.toContain(plain.id);
    expect(ids(mine)).toEqual([docker.id]);
    expect(mine.json.data).toEqual([expect.objectContaining({ name: 'docker-host', hostname: 'docker-1' })]);
  });

  it('lists containers with compound ids, their stack, ports and health, paged', async () => {
    const { t, ops } = use();
    const host = await t.createAsset();
    ops.gateway.connect(host.id, { hello: containerHello, handlers: engineHandlers() });

    const res = await ops.request('GET', `/api/v2/container/hosts/${host.id}/containers?per_page=2`);

    expect(res.status).toBe(200);
    expect(res.json.meta).toEqual({ total: 3, page: 1, per_page: 2 });
    expect(res.json.data).toEqual([
      expect.objectContaining({
        id: `${host.id}:${dbId}`,
        name: 'db',
        state: 'exited',
        stack_id: `${host.id}:shop`,
      }),
      expect.objectContaining({ id: `${host.id}:${loneId}`, name: 'lone', stack_id: null }),
    ]);
    const second = await ops.request(
      'GET',
      `/api/v2/container/hosts/${host.id}/containers?page=2&per_page=2`,
    );
    expect(second.json.data).toEqual([
      {
        id: `${host.id}:${webId}`,
        asset_id: host.id,
        engine_id: webId,
        name: 'web',
        image: 'nginx:1.27',
        state: 'running',
        status: 'Up 2 minutes (healthy)',
        health: 'healthy',
        created_at: '2026-11-25T10:00:00.000Z',
        ports: [{ private_port: 80, public_port: 8080, ip: '0.0.0.0', type: 'tcp' }],
        stack_id: `${host.id}:shop`,
        compose_project: 'shop',
        compose_service: 'web',
      },
    ]);
  });

  it('starts, stops and restarts: audited before the agent acts, announced after, 304 as unchanged', async () => {
    const { t, ops } = use();
    const host = await t.createAsset();
    const auditSeen: unknown[] = [];
    const handlers = engineHandlers();
    const act = handlers['containers.action'];
    ops.gateway.connect(host.id, {
      handlers: {
        ...handlers,
        'containers.action': async (payload, call) => {
          auditSeen.push((await auditOf(t, host.id)).length);
          if (!act) throw new Error('no handler');
          return act(payload, call);
        },
      },
    });
    const base = `/api/v2/container/containers/${host.id}:${webId}`;

    const stop = await ops.request('POST', `${base}/stop`);
    const again = await ops.request('POST', `${base}/stop`);
    const start = await ops.request('POST', `${base}/start`);
    const restart = await ops.request('POST', `${base}/restart`);

    expect(stop.json.data).toEqual({
      id: `${host.id}:${webId}`,
      action: 'stop',
      state: 'exited',
      changed: true,
    });
    expect(again.json.data).toMatchObject({ changed: false });
    expect(start.json.data).toMatchObject({ state: 'running', changed: true });
    expect(restart.json.data).toMatchObject({ action: 'restart', state: 'running' });
    expect(auditSeen).toEqual([1, 2, 3, 4]);
    expect(await auditOf(t, host.id)).toEqual([
      ['container.stop', `${host.id}:${webId}`],
      ['container.stop', `${host.id}:${webId}`],
      ['container.start', `${host.id}:${webId}`],
      ['container.restart', `${host.id}:${webId}`],
    ]);
    expect(ops.events.map((e) => [e.type, e.data])).toEqual([
      [
        'container.stopped',
        { asset_ids: [host.id], asset_id: host.id, container_id: `${host.id}:${webId}`, name: 'web' },
      ],
      ['container.stopped', expect.anything()],
      ['container.started', expect.anything()],
      ['container.restarted', expect.anything()],
    ]);
    expect(ops.gateway.callsOf('containers.action').map((c) => c.payload)).toEqual([
      { id: webId, action: 'stop' },
      { id: webId, action: 'stop' },
      { id: webId, action: 'start' },
      { id: webId, action: 'restart' },
    ]);
  });

  it('passes the log query as tail, unix seconds and a timestamps flag', async () => {
    const { t, ops } = use();
    const host = await t.createAsset();
    ops.gateway.connect(host.id, { handlers: engineHandlers() });

    const plain = await ops.request('GET', `/api/v2/container/containers/${host.id}:web/logs`);
    const since = await ops.request(
      'GET',
      `/api/v2/container/containers/${host.id}:web/logs?tail=5&since=2026-11-25T10:00:00Z&timestamps=true`,
    );
    const badTail = await ops.request('GET', `/api/v2/container/containers/${host.id}:web/logs?tail=0`);

    expect(plain.json.data).toEqual({
      id: `${host.id}:web`,
      tty: false,
      entries: [
        { stream: 'stdout', text: 'last 200' },
        { stream: 'stderr', text: 'warn' },
      ],
      truncated: false,
    });
    expect(since.status).toBe(200);
    expect(badTail.status).toBe(400);
    expect(ops.gateway.callsOf('containers.logs').map((c) => c.payload)).toEqual([
      { id: 'web', tail: 200, timestamps: false },
      { id: 'web', tail: 5, timestamps: true, since: Date.parse('2026-11-25T10:00:00Z') / 1000 },
    ]);
  });

  it('groups compose stacks by their project label; an unknown project is 404', async () => {
    const { t, ops } = use();
    const host = await t.createAsset();
    ops.gateway.connect(host.id, { handlers: engineHandlers() });

    const stack = await ops.request('GET', `/api/v2/container/stacks/${host.id}:shop`);
    const stacks = await ops.request('GET', `/api/v2/container/hosts/${host.id}/stacks`);
    const none = await ops.request('GET', `/api/v2/container/stacks/${host.id}:nothing`);

    expect(stack.json.data).toMatchObject({
      id: `${host.id}:shop`,
      asset_id: host.id,
      project: 'shop',
      running: 1,
      total: 2,
      services: ['db', 'web'],
    });
    expect((stack.json.data as { containers: { name: string }[] }).containers.map((c) => c.name)).toEqual([
      'db',
      'web',
    ]);
    expect((stacks.json.data as { id: string }[]).map((s) => s.id)).toEqual([`${host.id}:shop`]);
    expect(none.status).toBe(404);
  });

  it("lists a host's images and volumes, sorted", async () => {
    const { t, ops } = use();
    const host = await t.createAsset();
    ops.gateway.connect(host.id, { handlers: engineHandlers() });

    const images = await ops.request('GET', `/api/v2/container/hosts/${host.id}/images`);
    const volumes = await ops.request('GET', `/api/v2/container/hosts/${host.id}/volumes`);

    expect((images.json.data as { tags: string[] }[]).map((i) => i.tags[0])).toEqual(['alpha:1', 'zeta:1']);
    expect(images.json.data).toContainEqual(expect.objectContaining({ asset_id: host.id, size_bytes: 20 }));
    expect((volumes.json.data as { name: string }[]).map((v) => v.name)).toEqual(['data', 'zz']);
  });

  it('answers 409 asset_offline when the agent is away, sending and auditing nothing', async () => {
    const { t, ops } = use();
    const host = await t.createAsset({ name: 'cold' });
    await ops.setLastSeen(host.id, '2026-11-01T00:00:00.000Z');

    for (const [method, url] of [
      ['GET', `/api/v2/container/hosts/${host.id}/containers`],
      ['POST', `/api/v2/container/containers/${host.id}:web/stop`],
      ['GET', `/api/v2/container/containers/${host.id}:web/logs`],
      ['GET', `/api/v2/container/stacks/${host.id}:shop`],
      ['GET', `/api/v2/container/hosts/${host.id}/images`],
    ] as const) {
      const res = await ops.request(method, url);
      expect(res.status, url).toBe(409);
      expect(res.json.error).toBe('asset_offline');
      expect(res.json.message).toBe(
        `asset cold (${host.id}) is offline (last seen: 2026-11-01T00:00:00.000Z)`,
      );
    }
    expect(ops.gateway.calls).toEqual([]);
    expect(await auditOf(t, host.id)).toEqual([]);
  });

  it('says clearly when the host has no reachable engine, and maps the engine not-found to 404', async () => {
    const { t, ops } = use();
    const host = await t.createAsset({ name: 'bare' });
    ops.gateway.connect(host.id, {
      handlers: {
        'containers.list': () => {
          throw new AgentReplyError('unsupported', 'no container engine: no socket at /var/run/docker.sock');
        },
        'containers.action': () => {
          throw new AgentReplyError('not_found', 'container gone: no such container');
        },
      },
    });

    const list = await ops.request('GET', `/api/v2/container/hosts/${host.id}/containers`);
    const gone = await ops.request('POST', `/api/v2/container/containers/${host.id}:gone/start`);

    expect([list.status, list.json.error]).toEqual([409, 'conflict']);
    expect(list.json.message).toContain('no container engine');
    expect([gone.status, gone.json.error]).toEqual([404, 'not_found']);
    expect(ops.events).toEqual([]);
  });

  it('refuses malformed engine ids with 400 naming the field, sending nothing', async () => {
    const { t, ops } = use();
    const host = await t.createAsset();
    ops.gateway.connect(host.id, { handlers: engineHandlers() });

    for (const ref of ['-rf', 'a%2Fb', '..', 'x'.repeat(129), 'a:b', '']) {
      const res = await ops.request('POST', `/api/v2/container/containers/${host.id}:${ref}/start`);
      expect(res.status, ref).toBe(400);
      expect(res.json.error).toBe('validation');
    }
    expect(ops.gateway.calls).toEqual([]);
  });

  it('applies the authorization matrix: no key 401, wrong scope 403, viewer 403, outside allowed_assets 404', async () => {
    const { t, ops } = use();
    const mine = await t.createAsset();
    const other = await t.createAsset();
    for (const id of [mine.id, other.id]) ops.gateway.connect(id, { handlers: engineHandlers() });
    const reader = await t.createKey({
      role: 'operator',
      scopes: ['container:read'],
      allowed_assets: [mine.id],
    });
    const writer = await t.createKey({
      role: 'operator',
      scopes: ['container:*'],
      allowed_assets: [mine.id],
    });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    const wrong = await t.createKey({ role: 'operator', scopes: ['files:read'] });

    const anonymous = await ops.app.inject({ method: 'GET', url: '/api/v2/container/hosts' });
    expect(anonymous.statusCode).toBe(401);

    const reads = (id: string) => [
      `/api/v2/container/hosts/${id}/containers`,
      `/api/v2/container/hosts/${id}/images`,
      `/api/v2/container/hosts/${id}/volumes`,
      `/api/v2/container/hosts/${id}/stacks`,
      `/api/v2/container/stacks/${id}:shop`,
      `/api/v2/container/containers/${id}:web/logs`,
    ];
    for (const url of reads(mine.id)) {
      expect((await ops.request('GET', url, { key: wrong.raw_key })).status, url).toBe(403);
      expect((await ops.request('GET', url, { key: reader.raw_key })).status, url).toBe(200);
    }
    // A container id or stack id of a hidden asset reads exactly like one of an asset that does not exist.
    const ghost = 'ast_00000000000000000000000000';
    for (const [hiddenUrl, ghostUrl] of reads(other.id).map((u, i) => [u, reads(ghost)[i] ?? ''] as const)) {
      const hidden = await ops.request('GET', hiddenUrl, { key: reader.raw_key });
      const unknown = await ops.request('GET', ghostUrl, { key: reader.raw_key });
      expect(hidden.status, hiddenUrl).toBe(404);
      expect(unknown.status, ghostUrl).toBe(404);
      expect(hidden.json.message?.replace(other.id, 'X')).toBe(unknown.json.message?.replace(ghost, 'X'));
    }

    const act = `/api/v2/container/containers/${mine.id}:web/restart`;
    expect((await ops.request('POST', act, { key: reader.raw_key })).status).toBe(403);
    expect((await ops.request('POST', act, { key: viewer.raw_key })).status).toBe(403);
    expect((await ops.request('POST', act, { key: writer.raw_key })).status).toBe(200);
    const hiddenAct = await ops.request('POST', `/api/v2/container/containers/${other.id}:web/restart`, {
      key: writer.raw_key,
    });
    expect(hiddenAct.status).toBe(404);
    // Logs may hold secrets: a viewer never reads them (decision 0005).
    const viewerLogs = await ops.request('GET', `/api/v2/container/containers/${mine.id}:web/logs`, {
      key: viewer.raw_key,
    });
    expect(viewerLogs.status).toBe(403);
    expect(ops.gateway.callsOf('containers.action').map((c) => c.assetId)).toEqual([mine.id]);
    expect(ops.gateway.calls.every((c) => c.assetId === mine.id)).toBe(true);
  });
  it("keeps container logs and start/stop on the hub's own host for admins, like its journal", async () => {
    const { t, ops } = use();
    const host = await t.createAsset({ name: 'the-hub-machine' });
    await t.hub.services.assets.markHubHost(systemOwnerContext(), host.id);
    ops.gateway.connect(host.id, { handlers: engineHandlers() });
    const operator = await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [host.id] });

    const journal = await ops.request('GET', `/api/v2/assets/${host.id}/logs`, { key: operator.raw_key });
    expect(journal.status).toBe(403);
    for (const [method, url] of [
      ['GET', `/api/v2/container/containers/${host.id}:web/logs`],
      ['POST', `/api/v2/container/containers/${host.id}:web/stop`],
      ['POST', `/api/v2/container/containers/${host.id}:web/restart`],
    ] as const) {
      const res = await ops.request(method, url, { key: operator.raw_key });
      expect(res.status, url).toBe(403);
      expect(res.json.error).toBe(journal.json.error);
      expect(res.json.error).toBe('admin_required');
    }
    expect(ops.gateway.calls).toEqual([]);
    expect(await auditOf(t, host.id)).toEqual([]);

    // Listing what runs there stays open to the operator; an admin reads the logs.
    const list = await ops.request('GET', `/api/v2/container/hosts/${host.id}/containers`, {
      key: operator.raw_key,
    });
    expect(list.status).toBe(200);
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    const logs = await ops.request('GET', `/api/v2/container/containers/${host.id}:web/logs`, {
      key: admin.raw_key,
    });
    expect(logs.status, JSON.stringify(logs.json)).toBe(200);
  });
});
