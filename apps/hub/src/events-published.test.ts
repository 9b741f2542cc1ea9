/**
 * Every audited mutation publishes exactly its event, after its transaction commits, naming the assets it
 * concerns; every event published here also passes its payload schema from protocol.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { agentChannelPath, eventEnvelopeSchema, eventPayloads, type EventType } from '@svc/protocol';
import { FakeAgent, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { Compile } from 'typebox/compile';
import { systemOwnerContext } from './access/principal.js';
import { createAssetService } from './modules/assets/assets.service.js';
import { localOwnerContext } from './modules/users/owner-bootstrap.js';
import type { AuditService } from './modules/audit/audit.service.js';
import { createInProcessEventBus, type HubEvent } from './platform/event-bus.js';

function record(t: TestHub): HubEvent[] {
  const seen: HubEvent[] = [];
  t.hub.events.subscribe((event) => seen.push(event));
  return seen;
}

const envelope = Compile(eventEnvelopeSchema);

function expectSchemaValid(events: readonly HubEvent[]): void {
  for (const event of events) {
    expect(envelope.Check(event), JSON.stringify(event)).toBe(true);
    const check = Compile(eventPayloads[event.type]);
    expect(check.Check(event.data), `${event.type} ${JSON.stringify(event.data)}`).toBe(true);
  }
}

/** Polls until `done` holds; bounded in rounds, for events that follow agent traffic. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

const pairs = (events: readonly HubEvent[]): [EventType, string[]][] =>
  events.map((e) => [e.type, [...e.data.asset_ids].sort()]);

describe('events published by mutations', () => {
  let t: TestHub | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('assets, groups, keys, users and enrollment tokens each publish exactly their event', async () => {
    t = await startTestHub();
    const hub = t;
    const a = await hub.createAsset({ name: 'a' });
    const b = await hub.createAsset({ name: 'b' });
    const seen = record(hub);
    const ok = async (method: string, url: string, body?: unknown) => {
      const res = await hub.request(method, url, body === undefined ? {} : { body });
      expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
      return res.json.data as { id: string };
    };

    const cases: [string, () => Promise<unknown>, [EventType, string[]][]][] = [
      ['asset created', () => ok('POST', '/api/v2/assets', { name: 'c' }), [['asset.created', ['?']]]],
      [
        'asset updated',
        () => ok('PUT', `/api/v2/assets/${a.id}`, { description: 'x' }),
        [['asset.updated', [a.id]]],
      ],
      ['asset deleted', () => ok('DELETE', `/api/v2/assets/${b.id}`), [['asset.deleted', [b.id]]]],
      [
        'group created',
        () => ok('POST', '/api/v2/groups', { name: 'g', asset_ids: [a.id] }),
        [['group.created', [a.id]]],
      ],
      [
        'key created',
        () => ok('POST', '/api/v2/keys', { name: 'k', role: 'viewer', scopes: ['assets:read'] }),
        [['api_key.created', []]],
      ],
      [
        'user created',
        () =>
          ok('POST', '/api/auth/users', {
            username: 'ops',
            password: 'a-long-password-1',
            role: 'operator',
          }),
        [['user.created', []]],
      ],
      [
        'token created',
        () => ok('POST', '/api/v2/enrollment-tokens', { name: 'tok' }),
        [['enrollment_token.created', []]],
      ],
    ];
    const ids: Record<string, string> = {};
    for (const [name, run, expected] of cases) {
      seen.length = 0;
      const made = (await run()) as { id?: string } | undefined;
      if (made?.id) ids[name] = made.id;
      const wanted = expected.map(([type, assets]): [EventType, string[]] => [
        type,
        assets[0] === '?' ? [made?.id ?? ''] : assets,
      ]);
      expect(pairs(seen), name).toEqual(wanted);
      expectSchemaValid(seen);
    }

    const group = ids['group created'] ?? '';
    const key = ids['key created'] ?? '';
    const user = ids['user created'] ?? '';
    const token = ids['token created'] ?? '';
    const more: [string, () => Promise<unknown>, [EventType, string[]][]][] = [
      // old and new members both: whoever could see the asset that left learns of the change
      [
        'group updated',
        () => ok('PATCH', `/api/v2/groups/${group}`, { asset_ids: [] }),
        [['group.updated', [a.id]]],
      ],
      ['group deleted', () => ok('DELETE', `/api/v2/groups/${group}`), [['group.deleted', []]]],
      ['key updated', () => ok('PATCH', `/api/v2/keys/${key}`, { name: 'k2' }), [['api_key.updated', []]]],
      ['key deleted', () => ok('DELETE', `/api/v2/keys/${key}`), [['api_key.deleted', []]]],
      [
        'user updated',
        () => ok('PATCH', `/api/auth/users/${user}`, { role: 'viewer' }),
        [['user.updated', []]],
      ],
      [
        'token revoked',
        () => ok('DELETE', `/api/v2/enrollment-tokens/${token}`),
        [['enrollment_token.revoked', []]],
      ],
    ];
    // Mutations a signed-in owner makes, and the hub's own mark of its host: driven through the services.
    const owner = await localOwnerContext(hub.hub.database.db);
    const { services } = hub.hub;
    more.push(
      [
        'hub host marked',
        () => services.assets.markHubHost(systemOwnerContext(), a.id),
        [['asset.updated', [a.id]]],
      ],
      [
        'own password changed',
        () =>
          services.users.changeOwnPassword(owner, {
            current_password: hub.ownerPassword,
            new_password: 'another-long-password-2',
          }),
        [['user.updated', []]],
      ],
      // last: it revokes the owner key the requests above used
      [
        'owner token rotated',
        () => services.apiKeys.rotateOwnerToken(owner),
        [
          ['api_key.deleted', []],
          ['api_key.created', []],
        ],
      ],
    );
    for (const [name, run, expected] of more) {
      seen.length = 0;
      await run();
      expect(pairs(seen), name).toEqual(expected);
      expectSchemaValid(seen);
    }
  });

  it('enrollment, the agent channel, exec, services, power and credentials publish with their asset', async () => {
    // Wake-on-LAN from the hub goes to loopback: tests send nothing off this machine.
    t = await startTestHub({ listen: true, env: { SVC_WOL_BROADCAST: '127.0.0.1:9' } });
    const hub = t;
    const seen = record(hub);
    const [identity] = await provisionAgents(hub.hub, 1, 'ev');
    if (!identity) throw new Error('agent not provisioned');
    const id = identity.assetId;
    expect(pairs(seen)).toEqual([
      ['enrollment_token.created', []],
      ['agent.enrolled', [id]],
    ]);

    seen.length = 0;
    const agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(hub.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
      hello: { capabilities: ['exec', 'metrics', 'services', 'power'] },
      handlers: {
        'exec.run': () => ({
          signal: null,
          exit_code: 0,
          stdout: 'ok',
          stderr: '',
          duration_ms: 1,
          truncated: false,
          timed_out: false,
        }),
        'services.action': (p) => ({ name: p.name, action: p.action, active_state: 'active' }),
        'power.reboot': () => ({ accepted: true }),
        'power.shutdown': () => ({ accepted: true }),
        'credential.rotate': () => ({ saved: true }),
      },
    });
    await agent.start();
    await until(() => seen.length >= 2);
    expect(pairs(seen)).toEqual([
      ['asset.online', [id]],
      ['agent.connected', [id]],
    ]);

    const steps: [string, string, unknown, [EventType, string[]][]][] = [
      ['exec', `/api/v2/assets/${id}/exec`, { command: 'uptime' }, [['exec.completed', [id]]]],
      [
        'service',
        `/api/v2/assets/${id}/services/nginx.service/restart`,
        undefined,
        [['service.restarted', [id]]],
      ],
      ['fan-out exec', '/api/v2/exec', { targets: [id], command: 'uptime' }, [['exec.completed', [id]]]],
      [
        'service start',
        `/api/v2/assets/${id}/services/nginx.service/start`,
        undefined,
        [['service.started', [id]]],
      ],
      [
        'service stop',
        `/api/v2/assets/${id}/services/nginx.service/stop`,
        undefined,
        [['service.stopped', [id]]],
      ],
      ['reboot', `/api/v2/assets/${id}/reboot`, undefined, [['power.reboot', [id]]]],
      ['shutdown', `/api/v2/assets/${id}/shutdown`, undefined, [['power.shutdown', [id]]]],
      ['wake', `/api/v2/assets/${id}/wake`, undefined, [['power.wake', [id]]]],
      [
        'credential rotated',
        `/api/v2/agents/${id}/credential/rotate`,
        undefined,
        [['agent.credential_rotated', [id]]],
      ],
    ];
    const withMac = await hub.request('PUT', `/api/v2/assets/${id}`, {
      body: { mac_address: '02:00:00:00:00:01' },
    });
    expect(withMac.status, withMac.text).toBe(200);
    for (const [name, url, body, expected] of steps) {
      seen.length = 0;
      const res = await hub.request('POST', url, body === undefined ? {} : { body });
      expect(res.status, `${name}: ${res.text}`).toBe(200);
      expect(pairs(seen), name).toEqual(expected);
      expectSchemaValid(seen);
    }

    seen.length = 0;
    const revoked = await hub.request('DELETE', `/api/v2/agents/${id}/credential`);
    expect(revoked.status, revoked.text).toBe(200);
    await until(() => seen.length >= 3);
    expect(pairs(seen)).toEqual([
      ['agent.credential_revoked', [id]],
      ['agent.disconnected', [id]],
      ['asset.offline', [id]],
    ]);
    expectSchemaValid(seen);
  });

  it('publishes nothing for a mutation whose transaction rolled back', async () => {
    t = await startTestHub();
    const bus = createInProcessEventBus({ clock: t.clock, validate: true });
    const seen: HubEvent[] = [];
    bus.subscribe((event) => seen.push(event));
    const failingAudit: AuditService = {
      ...t.hub.services.audit,
      record: () => Promise.reject(new Error('audit write failed')),
    };
    const assets = createAssetService({
      db: t.hub.database.db,
      clock: t.clock,
      audit: failingAudit,
      events: bus,
    });
    await expect(assets.create(systemOwnerContext(), { name: 'doomed' })).rejects.toThrow(
      'audit write failed',
    );
    const rows = await t.hub.database.db
      .selectFrom('assets')
      .select('id')
      .where('name', '=', 'doomed')
      .execute();
    expect(rows).toEqual([]);
    expect(seen).toEqual([]);
  });
});
