/**
 * Runtime settings through the admin API as callers meet them: who may read and change them, what a bad change
 * is told, that a change is audited and published, and that a policy applies at once, without a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentChannelPath,
  type AuditEvent,
  type EnrollmentTokenCreated,
  type Setting,
  type SettingsUpdated,
} from '@svc/protocol';
import { createHub, parseEnv, silentLogger, systemOwnerContext, type Hub } from '@svc/hub';
import { databaseTargets, FakeAgent, provisionAgents } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import type { HubEvent } from '../../platform/event-bus.js';
import { createRuntimeSettings } from './runtime-settings.js';
import { readSetting } from '../../platform/db/key-values.js';
import { createSettingsService } from './settings.service.js';

const settingsOf = (data: unknown): Setting[] => (data as { settings: Setting[] }).settings;

describe.each(databaseTargets())('runtime settings API ($name)', ({ options }) => {
  const use = useTestHub(
    { ...options, env: { SVC_OUTBOUND_ALLOW_PRIVATE: 'false', SVC_METRICS_RETENTION_DAYS: '14' } },
    'per-test',
  );

  it('lists every setting with its value, source, default, env var and restart need', async () => {
    const t = use();
    const res = await t.request('GET', '/api/settings');
    expect(res.status).toBe(200);
    const settings = new Map(settingsOf(res.json.data).map((s) => [s.key, s]));
    expect(settings.get('security.outbound_allow_private')).toMatchObject({
      domain: 'runtime',
      value: 'false',
      source: 'env',
      default: 'auto',
      env_var: 'SVC_OUTBOUND_ALLOW_PRIVATE',
      restart_required: false,
    });
    expect(settings.get('retention.metrics_days')).toMatchObject({
      value: 14,
      source: 'env',
      restart_required: true,
    });
    expect(settings.get('policy.interactive_enabled')).toMatchObject({
      value: true,
      source: 'default',
      env_var: null,
    });
    expect(settings.get('services.discovery_default_lan_scan')).toMatchObject({
      value: false,
      domain: 'connectors',
    });
    // The TLS override shares the table but is no runtime setting: never listed.
    expect([...settings.keys()].filter((k) => k.startsWith('tls'))).toEqual([]);

    const domain = await t.request('GET', '/api/settings/retention');
    expect(domain.status).toBe(200);
    expect(settingsOf(domain.json.data).map((s) => s.domain)).toEqual([
      'retention',
      'retention',
      'retention',
      'retention',
    ]);
  });

  it('refuses operators and viewers (admin only) and anonymous callers, changing nothing', async () => {
    const t = use();
    const operator = await t.createKey({ role: 'operator', scopes: ['*'] });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    for (const key of [operator.raw_key, viewer.raw_key]) {
      for (const [method, url] of [
        ['GET', '/api/settings'],
        ['GET', '/api/settings/runtime'],
      ] as const) {
        const res = await t.request(method, url, { key });
        expect(res.status).toBe(403);
      }
      const patch = await t.request('PATCH', '/api/settings/runtime', {
        key,
        body: { 'policy.interactive_enabled': false },
      });
      expect(patch.status).toBe(403);
      expect(['admin_required', 'read_only_role']).toContain(patch.json.error);
    }
    const anonymous = await t.request('PATCH', '/api/settings/runtime', {
      key: null,
      body: { 'policy.interactive_enabled': false },
    });
    expect(anonymous.status).toBe(401);
    expect(t.hub.settings.policy('interactive')).toBe(true);
    expect(await readSetting(t.hub.database.db, 'policy.interactive_enabled')).toBeUndefined();
  });

  it('an admin key may change them', async () => {
    const t = use();
    const admin = await t.createKey({ role: 'admin' });
    const res = await t.request('PATCH', '/api/settings/runtime', {
      key: admin.raw_key,
      body: { 'policy.connector_enabled': false },
    });
    expect(res.status).toBe(200);
    expect(t.hub.settings.policy('connector')).toBe(false);
  });

  // Each bad key rides with a valid one of its domain: a refused change writes nothing at all.
  const companion = {
    runtime: ['policy.interactive_enabled', false],
    retention: ['retention.audit_days', 90],
  } as const;
  it.each([
    ['an unknown key', 'runtime', { 'policy.everything_enabled': true }, 'policy.everything_enabled'],
    ['the TLS override stored in the same table', 'runtime', { 'tls.override': 'x' }, 'tls.override'],
    ['a key of another domain', 'runtime', { 'retention.metrics_days': 3 }, 'retention.metrics_days'],
    [
      'a value of the wrong type',
      'runtime',
      { 'policy.structured_enabled': 'no' },
      'policy.structured_enabled',
    ],
    [
      'a choice not offered',
      'runtime',
      { 'security.outbound_allow_private': 'always' },
      'security.outbound_allow_private',
    ],
    ['a number out of range', 'retention', { 'retention.metrics_days': 0 }, 'retention.metrics_days'],
  ] as const)(
    'refuses %s with 400 naming the key, and writes none of the change',
    async (_name, domain, body, field) => {
      const t = use();
      const [validKey, validValue] = companion[domain];
      const res = await t.request('PATCH', `/api/settings/${domain}`, {
        body: { [validKey]: validValue, ...body },
      });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('validation');
      expect(res.json.details).toEqual([expect.objectContaining({ field })]);
      expect(t.hub.settings.resolved()[validKey].source).toBe('default');
      expect(await readSetting(t.hub.database.db, validKey)).toBeUndefined();
    },
  );

  it('refuses an unknown domain and an empty change', async () => {
    const t = use();
    // Not a domain: no such endpoint (the route matches only the domains, so /settings/tls stays its own).
    expect((await t.request('GET', '/api/settings/everything')).status).toBe(404);
    expect((await t.request('PATCH', '/api/settings/tls', { body: { x: 1 } })).status).toBe(405);
    expect((await t.request('PATCH', '/api/settings/runtime', { body: {} })).status).toBe(400);
  });

  it('applies a policy change at once, audits it and publishes settings.changed', async () => {
    const t = use();
    const seen: HubEvent[] = [];
    const unsubscribe = t.hub.events.subscribe((event) => seen.push(event));
    expect(t.hub.settings.policy('interactive')).toBe(true);
    expect(t.hub.settings.outboundAllowPrivate()).toBe('false');

    const res = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.interactive_enabled': false, 'security.outbound_allow_private': 'auto' },
    });
    unsubscribe();
    expect(res.status).toBe(200);
    const data = res.json.data as SettingsUpdated;
    expect(data.changed.sort()).toEqual(['policy.interactive_enabled', 'security.outbound_allow_private']);
    expect(data.restart_required).toEqual([]);
    // The same hub, no restart: the in-memory policies have changed.
    expect(t.hub.settings.policy('interactive')).toBe(false);
    expect(t.hub.settings.outboundAllowPrivate()).toBe('auto');
    expect(data.settings.find((s) => s.key === 'security.outbound_allow_private')).toMatchObject({
      value: 'auto',
      source: 'api',
    });

    const changed = seen.filter((e) => e.type === 'settings.changed');
    expect(changed).toHaveLength(1);
    expect(changed[0]?.data).toEqual({ asset_ids: [], domain: 'runtime', keys: data.changed });

    const audit = await t.request('GET', '/api/v2/audit/events?action=settings.changed');
    const events = audit.json.data as AuditEvent[];
    expect(events).toHaveLength(1);
    expect(events[0]?.detail).toMatchObject({
      domain: 'runtime',
      changes: {
        'policy.interactive_enabled': { from: null, to: false },
        'security.outbound_allow_private': { from: null, to: 'auto' },
      },
    });

    // Null clears the API value: the env value applies again, also at once.
    const cleared = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'security.outbound_allow_private': null },
    });
    expect(cleared.status).toBe(200);
    expect(t.hub.settings.outboundAllowPrivate()).toBe('false');
    expect(
      (cleared.json.data as SettingsUpdated).settings.find(
        (s) => s.key === 'security.outbound_allow_private',
      ),
    ).toMatchObject({ value: 'false', source: 'env' });
  });

  it('concurrent changes of one key are applied in order: each audit starts where the last one ended', async () => {
    const t = use();
    // The service itself, called back to back: HTTP requests rarely overlap this closely in a test.
    const runtime = createRuntimeSettings({}, t.config.settingsEnv);
    const service = createSettingsService({
      db: t.hub.database.db,
      clock: t.clock,
      audit: t.hub.services.audit,
      events: t.hub.events,
      runtime,
    });
    const values = ['false', 'true', 'auto', 'false'] as const;
    const results = await Promise.all(
      values.map((value) =>
        service.update(systemOwnerContext(), 'runtime', { 'security.outbound_allow_private': value }),
      ),
    );
    expect(results.map((r) => r.changed)).toEqual(values.map(() => ['security.outbound_allow_private']));
    const audit = await t.request('GET', '/api/v2/audit/events?action=settings.changed&per_page=10');
    const chain = (audit.json.data as AuditEvent[])
      .map((e) => (e.detail.changes as Record<string, unknown>)['security.outbound_allow_private'])
      .reverse();
    // Each change starts from the value the previous one stored (the first from none: only the env had one).
    expect(chain).toEqual([
      { from: null, to: 'false' },
      { from: 'false', to: 'true' },
      { from: 'true', to: 'auto' },
      { from: 'auto', to: 'false' },
    ]);
    expect(runtime.outboundAllowPrivate()).toBe('false');
    expect(await readSetting(t.hub.database.db, 'security.outbound_allow_private')).toBe('false');
  });

  it('a change to nothing new is neither audited nor published', async () => {
    const t = use();
    const seen: HubEvent[] = [];
    const unsubscribe = t.hub.events.subscribe((event) => seen.push(event));
    const res = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.structured_enabled': null },
    });
    unsubscribe();
    expect(res.status).toBe(200);
    expect((res.json.data as SettingsUpdated).changed).toEqual([]);
    expect(seen.filter((e) => e.type === 'settings.changed')).toEqual([]);
    const audit = await t.request('GET', '/api/v2/audit/events?action=settings.changed');
    expect(audit.json.data).toEqual([]);
  });

  it('enrollment token defaults follow the settings at once; a request naming its own still wins', async () => {
    const t = use();
    const before = await t.request('POST', '/api/v2/enrollment-tokens', { body: { name: 'before' } });
    expect(before.status).toBe(201);
    expect(before.json.data).toMatchObject({ max_uses: 1 });
    const change = await t.request('PATCH', '/api/settings/enrollment', {
      body: { 'enrollment.token_default_expires_hours': 2, 'enrollment.token_default_max_uses': 5 },
    });
    expect(change.status).toBe(200);
    expect((change.json.data as SettingsUpdated).restart_required).toEqual([]);
    const after = await t.request('POST', '/api/v2/enrollment-tokens', { body: { name: 'after' } });
    const token = after.json.data as EnrollmentTokenCreated;
    expect(token.max_uses).toBe(5);
    expect(Date.parse(token.expires_at) - Date.parse(token.created_at)).toBe(2 * 3_600_000);
    const own = await t.request('POST', '/api/v2/enrollment-tokens', { body: { name: 'own', max_uses: 2 } });
    expect((own.json.data as EnrollmentTokenCreated).max_uses).toBe(2);
  });

  it('says which changed keys need a restart, and shows the stored value at once', async () => {
    const t = use();
    const res = await t.request('PATCH', '/api/settings/retention', {
      body: { 'retention.metrics_days': 30, 'retention.audit_days': 90 },
    });
    expect(res.status).toBe(200);
    const data = res.json.data as SettingsUpdated;
    expect(data.restart_required).toEqual(['retention.metrics_days']);
    expect(data.settings.find((s) => s.key === 'retention.metrics_days')).toMatchObject({
      value: 30,
      source: 'api',
    });
    expect(data.settings.find((s) => s.key === 'retention.metrics_days')?.pending_restart).toBe(true);
    expect(data.settings.find((s) => s.key === 'retention.audit_days')?.pending_restart).toBe(false);
    expect(await readSetting(t.hub.database.db, 'retention.metrics_days')).toBe(30);
  });
});

describe('service-discovery fleet defaults in the welcome', () => {
  const use = useTestHub({ listen: true }, 'per-test');

  it('an agent is welcomed with the defaults in force when it connects', async () => {
    const t = use();
    const [first, second] = await provisionAgents(t.hub, 2, 'discovery');
    if (!first || !second) throw new Error('agents not provisioned');
    const url = `ws://127.0.0.1:${String(t.servers?.httpPort)}${agentChannelPath}`;
    const a = new FakeAgent({ url, credential: first.credential });
    const welcome = await a.start();
    expect(welcome.discovery).toEqual({ container: true, proxy_api: true, port_scan: true, lan_scan: false });

    const res = await t.request('PATCH', '/api/settings/connectors', {
      body: { 'services.discovery_default_lan_scan': true, 'services.discovery_default_port_scan': false },
    });
    expect(res.status).toBe(200);
    const b = new FakeAgent({ url, credential: second.credential });
    expect((await b.start()).discovery).toEqual({
      container: true,
      proxy_api: true,
      port_scan: false,
      lan_scan: true,
    });
    a.close();
    b.close();
  });
});

describe('settings that need a restart', () => {
  const dirs: string[] = [];
  const opened: Hub[] = [];
  afterEach(async () => {
    for (const hub of opened.splice(0)) await hub.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  async function open(dataDir: string): Promise<Hub> {
    const env = { SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled', SVC_BCRYPT_COST: '4' };
    const hub = await createHub({ config: parseEnv(env, dataDir), logger: silentLogger });
    opened.push(hub);
    return hub;
  }

  async function requestsUntilRefused(hub: Hub, key: string, most: number): Promise<number> {
    for (let i = 1; i <= most; i++) {
      const res = await hub.app.inject({
        method: 'GET',
        url: '/api/v2/whoami',
        headers: { authorization: `Bearer ${key}` },
        remoteAddress: '127.0.0.1',
      });
      if (res.statusCode === 429) return i;
    }
    return most + 1;
  }

  it('a rate limit set through the API is stored at once and applied by the next start', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hub-settings-'));
    dirs.push(dataDir);
    const first = await open(dataDir);
    const admin = await first.services.apiKeys.create(systemOwnerContext(), {
      name: 'settings admin',
      role: 'admin',
      scopes: ['*'],
    });
    const res = await first.app.inject({
      method: 'PATCH',
      url: '/api/settings/runtime',
      headers: { authorization: `Bearer ${admin.raw_key}` },
      remoteAddress: '127.0.0.1',
      payload: { 'rate_limit.per_ip_per_minute': 3 },
    });
    expect(res.statusCode).toBe(200);
    expect((JSON.parse(res.body) as { data: SettingsUpdated }).data.restart_required).toEqual([
      'rate_limit.per_ip_per_minute',
    ]);
    // Not applied by this process: the limit it started with (600) still holds.
    expect(await requestsUntilRefused(first, admin.raw_key, 5)).toBe(6);
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const second = await open(dataDir);
    expect(second.settings.resolved()['rate_limit.per_ip_per_minute']).toEqual({ value: 3, source: 'api' });
    expect(second.settings.isPendingRestart('rate_limit.per_ip_per_minute')).toBe(false);
    expect(await requestsUntilRefused(second, admin.raw_key, 5)).toBe(4);
  });
});
