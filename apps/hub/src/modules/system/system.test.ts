import { describe, expect, it } from 'vitest';
import type { AgentRequestResult, AgentRequestType } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { AgentReplyError } from '../../agents/agent-gateway.js';
import type { FakeHandlers } from '../../testing/fake-gateway.js';
import { useOperations } from '../../testing/operations-app.js';
import { checkLogQuery, checkServiceName } from './system.service.js';

const processes: AgentRequestResult<'processes.list'> = {
  processes: [
    {
      pid: 1,
      ppid: 0,
      user: 'root',
      name: 'systemd',
      command: '/sbin/init',
      state: 'S',
      cpu_percent: 0.1,
      memory_bytes: 12_000_000,
      started_at: null,
    },
  ],
};

const readers: { path: string; type: AgentRequestType; result: unknown }[] = [
  { path: 'processes', type: 'processes.list', result: processes },
  {
    path: 'services',
    type: 'services.list',
    result: {
      manager: 'systemd',
      services: [
        {
          name: 'ssh.service',
          description: 'OpenSSH',
          load_state: 'loaded',
          active_state: 'active',
          sub_state: 'running',
          enabled: true,
        },
      ],
    },
  },
  {
    path: 'network',
    type: 'system.network',
    result: {
      interfaces: [
        {
          name: 'eth0',
          mac: '52:54:00:12:34:56',
          internal: false,
          addresses: [{ address: '10.0.0.2', family: 'IPv4', cidr: '10.0.0.2/24' }],
        },
      ],
    },
  },
  {
    path: 'disks',
    type: 'system.disks',
    result: {
      filesystems: [
        {
          mount: '/',
          device: '/dev/sda1',
          fstype: 'ext4',
          size_bytes: 100,
          used_bytes: 40,
          available_bytes: 60,
        },
      ],
    },
  },
  {
    path: 'packages',
    type: 'system.packages',
    result: { manager: 'dpkg', packages: [{ name: 'bash', version: '5.2', arch: 'amd64' }] },
  },
  {
    path: 'cron',
    type: 'system.cron',
    result: {
      jobs: [
        {
          source: '/etc/crontab',
          user: 'root',
          schedule: '17 * * * *',
          command: 'run-parts /etc/cron.hourly',
        },
      ],
    },
  },
  {
    path: 'users',
    type: 'system.users',
    result: { users: [{ name: 'root', uid: 0, gid: 0, home: '/root', shell: '/bin/bash', gecos: 'root' }] },
  },
];

async function auditOf(t: TestHub, assetId: string) {
  const rows = await t.hub.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('asset_id', '=', assetId)
    .where('action', '!=', 'asset.created')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    action: r.action,
    target: r.target_id,
    detail: JSON.parse(r.detail) as unknown,
  }));
}

describe.each(databaseTargets())('system ($name)', ({ options }) => {
  const use = useOperations(options);

  it('returns each kind of system data as the agent reports it', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const handlers: Record<string, () => unknown> = {};
    for (const r of readers) handlers[r.type] = () => r.result;
    ops.gateway.connect(asset.id, { handlers });

    for (const r of readers) {
      const res = await ops.request('GET', `/api/v2/assets/${asset.id}/${r.path}`);
      expect(res.status, r.path).toBe(200);
      expect(res.json.data, r.path).toEqual(r.result);
    }
    expect(ops.gateway.calls.map((c) => c.type)).toEqual(readers.map((r) => r.type));
  });

  it('answers 409 asset_offline for system data of an offline asset', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'cold' });
    await ops.setLastSeen(asset.id, '2026-11-01T00:00:00.000Z');

    const res = await ops.request('GET', `/api/v2/assets/${asset.id}/disks`);

    expect(res.status).toBe(409);
    expect(res.json.message).toBe(
      `asset cold (${asset.id}) is offline (last seen: 2026-11-01T00:00:00.000Z)`,
    );
  });

  it('kills a process with SIGTERM by default, audited before it is sent', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const seen: unknown[] = [];
    ops.gateway.connect(asset.id, {
      handlers: {
        'processes.kill': async ({ pid, signal }) => {
          seen.push(await auditOf(t, asset.id));
          return { pid, signal };
        },
      },
    });

    const term = await ops.request('POST', `/api/v2/assets/${asset.id}/processes/kill`, {
      body: { pid: 4242 },
    });
    const kill = await ops.request('POST', `/api/v2/assets/${asset.id}/processes/kill`, {
      body: { pid: 4243, signal: 'SIGKILL' },
    });
    const bad = await ops.request('POST', `/api/v2/assets/${asset.id}/processes/kill`, {
      body: { pid: 1, signal: 'SIGBOGUS' },
    });
    const zero = await ops.request('POST', `/api/v2/assets/${asset.id}/processes/kill`, { body: { pid: 0 } });

    expect(term.json.data).toEqual({ pid: 4242, signal: 'SIGTERM' });
    expect(kill.json.data).toEqual({ pid: 4243, signal: 'SIGKILL' });
    expect([bad.status, zero.status]).toEqual([400, 400]);
    expect(seen[0]).toEqual([
      { action: 'process.kill', target: '4242', detail: { pid: 4242, signal: 'SIGTERM' } },
    ]);
    expect(ops.gateway.calls).toHaveLength(2);
  });

  it('starts, stops and restarts a service: audited, announced, by name as data', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const states = { start: 'active', stop: 'inactive', restart: 'active' } as const;
    ops.gateway.connect(asset.id, {
      handlers: { 'services.action': ({ name, action }) => ({ name, action, active_state: states[action] }) },
    });

    for (const action of ['start', 'stop', 'restart'] as const) {
      const res = await ops.request(
        'POST',
        `/api/v2/assets/${asset.id}/services/nginx@site.service/${action}`,
      );
      expect(res.status, action).toBe(200);
      expect(res.json.data).toEqual({ name: 'nginx@site.service', action, active_state: states[action] });
    }

    expect(ops.gateway.calls.map((c) => c.payload)).toEqual([
      { name: 'nginx@site.service', action: 'start' },
      { name: 'nginx@site.service', action: 'stop' },
      { name: 'nginx@site.service', action: 'restart' },
    ]);
    expect((await auditOf(t, asset.id)).map((a) => [a.action, a.target])).toEqual([
      ['service.start', 'nginx@site.service'],
      ['service.stop', 'nginx@site.service'],
      ['service.restart', 'nginx@site.service'],
    ]);
    expect(
      ops.events.map((e) => [
        e.type,
        e.data.asset_ids[0],
        'active_state' in e.data ? e.data.active_state : null,
      ]),
    ).toEqual([
      ['service.started', asset.id, 'active'],
      ['service.stopped', asset.id, 'inactive'],
      ['service.restarted', asset.id, 'active'],
    ]);
  });

  it('refuses service names that are not plain unit names, sending nothing', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, {
      handlers: { 'services.action': ({ name, action }) => ({ name, action, active_state: 'x' }) },
    });

    for (const name of ['-H', '--help', 'a;reboot', 'a b', '$(id)', 'a/b', 'x'.repeat(257)]) {
      const res = await ops.request(
        'POST',
        `/api/v2/assets/${asset.id}/services/${encodeURIComponent(name)}/restart`,
      );
      expect(res.status, name).toBe(400);
    }
    expect(ops.gateway.calls).toHaveLength(0);
    expect(await auditOf(t, asset.id)).toEqual([]);
  });

  it('says clearly when the host has no systemd', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'alpine' });
    ops.gateway.connect(asset.id, {
      handlers: {
        'services.action': () => {
          throw new AgentReplyError('unsupported', '');
        },
      },
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/services/sshd/start`);

    expect(res.status).toBe(409);
    expect(res.json.error).toBe('conflict');
    expect(res.json.message).toBe(`asset alpine (${asset.id}): this host has no systemd`);
    expect(ops.events).toEqual([]);
  });

  it('passes a log query through, checked and normalized', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const handlers: FakeHandlers = {
      'system.logs': () => ({
        source: 'journal',
        truncated: false,
        entries: [{ ts: '2026-11-23T11:00:00.000Z', source: 'sshd', priority: 6, message: 'Accepted key' }],
      }),
    };
    ops.gateway.connect(asset.id, { handlers });

    const res = await ops.request(
      'GET',
      `/api/v2/assets/${asset.id}/logs?source=journal&unit=ssh.service&since=2026-11-23T10:00:00%2B01:00&grep=Accepted&priority=6&limit=10`,
    );

    expect(res.status).toBe(200);
    expect((res.json.data as { entries: unknown[] }).entries).toHaveLength(1);
    expect(ops.gateway.callsOf('system.logs')[0]?.payload).toEqual({
      source: 'journal',
      unit: 'ssh.service',
      since: '2026-11-23T09:00:00.000Z',
      grep: 'Accepted',
      priority: 6,
      limit: 10,
    });

    const refused = [
      'source=file',
      'source=file&path=/var/log/../../etc/shadow',
      'source=journal&path=/var/log/syslog',
      'unit=--all',
      'since=yesterday',
      'since=2026-11-23T10:00:00Z&until=2026-11-23T09:00:00Z',
      'limit=0',
      'priority=8',
      'bogus=1',
    ];
    for (const query of refused) {
      const bad = await ops.request('GET', `/api/v2/assets/${asset.id}/logs?${query}`);
      expect(bad.status, query).toBe(400);
    }
    expect(ops.gateway.calls).toHaveLength(1);
  });

  it('needs the scope of each area', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: { 'processes.list': () => processes } });
    const key = await t.createKey({ role: 'operator', scopes: ['processes:read'] });

    const list = await ops.request('GET', `/api/v2/assets/${asset.id}/processes`, { key: key.raw_key });
    const kill = await ops.request('POST', `/api/v2/assets/${asset.id}/processes/kill`, {
      key: key.raw_key,
      body: { pid: 5 },
    });
    const logs = await ops.request('GET', `/api/v2/assets/${asset.id}/logs`, { key: key.raw_key });

    expect(list.status).toBe(200);
    expect(kill.json.error).toBe('insufficient_scope');
    expect(logs.json.error).toBe('insufficient_scope');
  });
});

describe('system input checks', () => {
  it('accepts unit names and refuses option-like ones', () => {
    expect(checkServiceName('getty@tty1.service')).toBe('getty@tty1.service');
    expect(checkServiceName('dev-disk-by\\x2duuid.device'.replace('\\', '_'))).toBe(
      'dev-disk-by_x2duuid.device',
    );
    expect(() => checkServiceName('-x')).toThrow("must not start with '-'");
    expect(() => checkServiceName('a/b')).toThrow();
    expect(() => checkServiceName('..')).toThrow('is not a service name');
    expect(() => checkServiceName('.')).toThrow('is not a service name');
  });

  it('infers source=file from a path and canonicalizes it', () => {
    expect(checkLogQuery({ path: '/var/log//syslog' })).toEqual({ source: 'file', path: '/var/log/syslog' });
    expect(checkLogQuery({})).toEqual({});
  });
});
