/**
 * Enrollment tokens, POST /api/v1/enroll and the admin credential routes, through the HTTP app with the real
 * guard and a real database. The agent gateway is a fake here (gateway.test.ts runs rotation end to end over
 * a real WebSocket).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentChannelPath,
  agentCredentialPattern,
  enrollmentTokenPattern,
  type AgentRequestType,
  type EnrollmentTokenCreated,
  type EnrollResponse,
} from '@svc/protocol';
import { databaseTargets, startTestHub, type TestHub, type TestHubOptions } from '@svc/testkit';
import { AgentTimeoutError, type AgentGateway } from '../../agents/agent-gateway.js';
import { buildApp } from '../../app.js';
import { createTransportCheck } from '../../http/transport-security.js';
import { sha256Hex } from '../../platform/crypto.js';
import { createInProcessEventBus, type HubEvent } from '../../platform/event-bus.js';
import { silentLogger } from '../../platform/logger.js';
import { agentsRoutes } from '../agents/agents.routes.js';
import { createAgentsListService } from '../agents/agents.service.js';
import { enrollmentRoutes } from './enrollment.routes.js';
import { createEnrollmentService, type EnrollmentServiceDeps } from './enrollment.service.js';

type FakeGateway = Pick<AgentGateway, 'isConnected' | 'request' | 'disconnect'> & {
  connected: Set<string>;
  disconnected: string[];
  requests: { assetId: string; type: AgentRequestType; payload: unknown }[];
  reply: (type: AgentRequestType, payload: unknown) => Promise<unknown>;
};

function fakeGateway(): FakeGateway {
  const gateway: FakeGateway = {
    connected: new Set(),
    disconnected: [],
    requests: [],
    reply: () => Promise.resolve({ saved: true }),
    isConnected: (assetId) => gateway.connected.has(assetId),
    disconnect: (assetId) => {
      gateway.disconnected.push(assetId);
    },
    request: (assetId, type, payload) => {
      gateway.requests.push({ assetId, type, payload });
      return gateway.reply(type, payload) as never;
    },
  };
  return gateway;
}

interface Rig {
  t: TestHub;
  gateway: FakeGateway;
  events: HubEvent[];
  call(
    method: string,
    url: string,
    options?: { key?: string | null; body?: unknown; ip?: string },
  ): Promise<{
    status: number;
    headers: Record<string, unknown>;
    json: Record<string, unknown> & { data?: unknown };
  }>;
  token(input?: Record<string, unknown>): Promise<EnrollmentTokenCreated>;
  enroll(token: string, ip?: string, hostname?: string): ReturnType<Rig['call']>;
  close(): Promise<void>;
}

let rig: Rig | null = null;
afterEach(async () => {
  await rig?.close();
  rig = null;
});

async function compose(options: TestHubOptions, deps: Partial<EnrollmentServiceDeps> = {}): Promise<Rig> {
  const t = await startTestHub(options);
  const bus = createInProcessEventBus({ clock: t.clock, validate: true });
  const events: HubEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const gateway = fakeGateway();
  const service = createEnrollmentService({
    db: t.hub.database.db,
    clock: t.clock,
    audit: t.hub.services.audit,
    events: bus,
    tls: t.hub.tls,
    gateway,
    assets: t.hub.services.assets,
    ...deps,
  });
  const app = buildApp({
    logger: silentLogger,
    isSecure: createTransportCheck({ tlsMode: t.config.tlsMode, trustedProxies: t.config.trustedProxies }),
    trustedProxies: t.config.trustedProxies,
    rateLimit: t.config.rateLimit,
    verifyApiKey: (text) => t.hub.services.apiKeys.authenticate(text),
    handlers: {
      ...enrollmentRoutes(service),
      // Rotation and revocation are the agents module's routes, answered by this service.
      ...agentsRoutes({
        agents: createAgentsListService({ assets: t.hub.services.assets, gateway: { sessions: () => [] } }),
        credentials: service,
      }),
    },
    rawHandlers: {},
  });
  const call: Rig['call'] = async (method, url, o = {}) => {
    const key = o.key === undefined ? t.ownerKey : o.key;
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(options.injectAsHttps ? { 'x-forwarded-proto': 'https' } : {}),
        ...(key !== null ? { authorization: `Bearer ${key}` } : {}),
        ...(o.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(o.body !== undefined ? { payload: JSON.stringify(o.body) } : {}),
      remoteAddress: o.ip ?? '127.0.0.1',
    });
    return {
      status: res.statusCode,
      headers: res.headers,
      json: JSON.parse(res.body) as Record<string, unknown>,
    };
  };
  return {
    t,
    gateway,
    events,
    call,
    async token(input = {}) {
      const res = await call('POST', '/api/v2/enrollment-tokens', { body: { name: 'rack 1', ...input } });
      expect(res.status).toBe(201);
      return res.json.data as EnrollmentTokenCreated;
    },
    enroll(token, ip = '127.0.0.1', hostname = 'web-01') {
      return call('POST', '/api/v1/enroll', {
        key: null,
        ip,
        body: { token, hostname, platform: 'linux', agent_version: '0.1.0' },
      });
    },
    async close() {
      await app.close();
      await t.close();
    },
  };
}

async function countAgentAssets(t: TestHub): Promise<number> {
  const row = await t.hub.database.db
    .selectFrom('assets')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('source', '=', 'agent')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe.each(databaseTargets())('enrollment ($name)', ({ options }) => {
  it('shows a token once, stores only its SHA-256, and lists tokens without it', async () => {
    rig = await compose(options);
    const created = await rig.token();
    expect(created.token).toMatch(enrollmentTokenPattern);
    expect(created).toMatchObject({
      name: 'rack 1',
      max_uses: 1,
      uses: 0,
      revoked: false,
      expires_at: new Date(rig.t.clock.now().getTime() + 24 * 3_600_000).toISOString(),
      ca_fingerprint_sha256: null,
    });
    const row = await rig.t.hub.database.db
      .selectFrom('enrollment_tokens')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(sha256Hex(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);

    await rig.token({ name: 'second', expires_in_hours: 2, max_uses: 5 });
    const list = await rig.call('GET', '/api/v2/enrollment-tokens?per_page=1');
    expect(list.status).toBe(200);
    expect(list.json.meta).toEqual({ total: 2, page: 1, per_page: 1 });
    expect(list.json.data).toEqual([expect.objectContaining({ id: created.id, name: 'rack 1' })]);
    expect(JSON.stringify(list.json)).not.toContain(created.token.slice(4));

    const audit = await rig.t.hub.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', created.id)
      .execute();
    expect(audit.map((e) => e.action)).toEqual(['enrollment_token.created']);
    expect(JSON.stringify(audit)).not.toContain(created.token.slice(4));
  });

  it('keeps enrollment tokens and agent credentials to admins', async () => {
    rig = await compose(options);
    const asset = await rig.t.createAsset();
    const operator = await rig.t.createKey({ role: 'operator', scopes: ['*'] });
    const viewer = await rig.t.createKey({ role: 'viewer', scopes: ['*'] });
    const routes: [string, string, unknown?][] = [
      ['POST', '/api/v2/enrollment-tokens', { name: 'x' }],
      ['GET', '/api/v2/enrollment-tokens'],
      ['DELETE', '/api/v2/enrollment-tokens/enr_00000000000000000000000000'],
      ['POST', `/api/v2/agents/${asset.id}/credential/rotate`],
      ['DELETE', `/api/v2/agents/${asset.id}/credential`],
    ];
    for (const [method, url, body] of routes) {
      for (const key of [operator.raw_key, viewer.raw_key]) {
        const res = await rig.call(method, url, { key, body });
        expect([method, url, res.status]).toEqual([method, url, 403]);
      }
      expect((await rig.call(method, url, { key: null, body })).status).toBe(401);
    }
    expect(await countAgentAssets(rig.t)).toBe(0);
    expect(rig.gateway.disconnected).toEqual([]);
  });

  it('enrolls an agent: a new offline agent asset, a credential stored as its hash, the use counted and audited', async () => {
    rig = await compose(options);
    const token = await rig.token({ max_uses: 2 });
    const res = await rig.enroll(token.token, '127.0.0.1', 'web-01.example.net');
    expect(res.status).toBe(201);
    const enrolled = res.json.data as EnrollResponse;
    expect(enrolled.credential).toMatch(agentCredentialPattern);
    expect(enrolled).toMatchObject({
      ca_pem: null,
      ca_fingerprint_sha256: null,
      channel_path: agentChannelPath,
    });

    const db = rig.t.hub.database.db;
    const asset = await db
      .selectFrom('assets')
      .selectAll()
      .where('id', '=', enrolled.asset_id)
      .executeTakeFirstOrThrow();
    expect(asset).toMatchObject({
      name: 'web-01.example.net',
      hostname: 'web-01.example.net',
      platform: 'linux',
      source: 'agent',
      status: 'offline',
      agent_version: '0.1.0',
    });
    const credential = await db
      .selectFrom('agent_credentials')
      .selectAll()
      .where('asset_id', '=', enrolled.asset_id)
      .executeTakeFirstOrThrow();
    expect(credential).toMatchObject({
      credential_hash: sha256Hex(enrolled.credential),
      enrollment_token_id: token.id,
    });
    expect(JSON.stringify(credential)).not.toContain(enrolled.credential);
    const tokenRow = await db
      .selectFrom('enrollment_tokens')
      .selectAll()
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    expect(tokenRow.uses).toBe(1);

    const audit = await db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'agent.enrolled')
      .execute();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ asset_id: enrolled.asset_id, target_id: enrolled.asset_id });
    expect(JSON.stringify(audit)).not.toContain(enrolled.credential.slice(4));
    // the token's own creation publishes too; this test is about the enrollment
    const enrollEvents = rig.events.filter((e) => e.type !== 'enrollment_token.created');
    expect(enrollEvents.map((e) => [e.type, e.data.asset_ids[0]])).toEqual([
      ['agent.enrolled', enrolled.asset_id],
    ]);
  });

  it('never lets concurrent enrollments take more uses than max_uses', async () => {
    rig = await compose(options);
    const token = await rig.token({ max_uses: 3 });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) => rig!.enroll(token.token, '127.0.0.1', `host-${i}`)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 401)).toHaveLength(9);
    expect(await countAgentAssets(rig.t)).toBe(3);
    const row = await rig.t.hub.database.db
      .selectFrom('enrollment_tokens')
      .select('uses')
      .where('id', '=', token.id)
      .executeTakeFirstOrThrow();
    expect(row.uses).toBe(3);
  });

  it('refuses unknown, malformed, expired, revoked and used-up tokens alike, creating nothing', async () => {
    rig = await compose(options);
    const used = await rig.token({ max_uses: 1 });
    expect((await rig.enroll(used.token)).status).toBe(201);
    const expiring = await rig.token({ expires_in_hours: 1 });
    const revoked = await rig.token();
    const revocation = await rig.call('DELETE', `/api/v2/enrollment-tokens/${revoked.id}`);
    expect(revocation.status).toBe(200);
    expect(revocation.json.data).toMatchObject({ id: revoked.id, revoked: true });
    rig.t.clock.advance(3_600_000);

    const refusals = await Promise.all(
      [used.token, expiring.token, revoked.token, `sve_${'a'.repeat(52)}`, 'not-a-token-at-all'].map(
        (token) => rig!.enroll(token),
      ),
    );
    for (const res of refusals) {
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({
        error: 'unauthorized',
        message: 'The enrollment token is not valid, has expired, was revoked or is used up.',
      });
    }
    expect(await countAgentAssets(rig.t)).toBe(1);
    const audit = await rig.t.hub.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', revoked.id)
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['enrollment_token.created', 'enrollment_token.revoked']);
    expect(
      (await rig.call('DELETE', '/api/v2/enrollment-tokens/enr_00000000000000000000000000')).status,
    ).toBe(404);
  });

  it('validates the enrollment body', async () => {
    rig = await compose(options);
    const token = await rig.token({ max_uses: 10 });
    for (const body of [
      { token: token.token, hostname: 'h'.repeat(254) },
      { token: token.token, hostname: '   ' },
      { token: token.token, hostname: 'ok', asset_id: 'ast_someone_else' },
      { token: token.token },
    ]) {
      const res = await rig.call('POST', '/api/v1/enroll', { key: null, body });
      expect(res.status).toBe(400);
    }
    expect(await countAgentAssets(rig.t)).toBe(0);
  });

  it('strips controls, escape sequences and bidi overrides from the hostname an agent enrolls with', async () => {
    rig = await compose(options);
    const token = await rig.token({ max_uses: 10 });
    const res = await rig.call('POST', '/api/v1/enroll', {
      key: null,
      body: {
        token: token.token,
        hostname: '\u001b[2J\u001b]0;pwned\u0007web\u202e10-bd\u0085\r\n',
        platform: 'linux',
        agent_version: '0.1.0\u001b[8m',
      },
    });
    const blank = await rig.call('POST', '/api/v1/enroll', {
      key: null,
      body: { token: token.token, hostname: '\u001b[31m\u202e\u0007' },
    });

    expect(res.status).toBe(201);
    const enrolled = res.json.data as EnrollResponse;
    const asset = await rig.t.hub.database.db
      .selectFrom('assets')
      .selectAll()
      .where('id', '=', enrolled.asset_id)
      .executeTakeFirstOrThrow();
    expect(asset).toMatchObject({ name: 'web10-bd', hostname: 'web10-bd', agent_version: '0.1.0' });
    expect(blank.status).toBe(400);
    expect(await countAgentAssets(rig.t)).toBe(1);
  });

  it('revokes an agent credential and disconnects the agent; a manual asset has none to revoke or rotate', async () => {
    rig = await compose(options);
    const token = await rig.token();
    const enrolled = (await rig.enroll(token.token)).json.data as EnrollResponse;
    const res = await rig.call('DELETE', `/api/v2/agents/${enrolled.asset_id}/credential`);
    expect(res.json.data).toEqual({ asset_id: enrolled.asset_id, revoked: true });
    expect(rig.gateway.disconnected).toEqual([enrolled.asset_id]);
    const left = await rig.t.hub.database.db
      .selectFrom('agent_credentials')
      .selectAll()
      .where('asset_id', '=', enrolled.asset_id)
      .execute();
    expect(left).toEqual([]);

    const manual = await rig.t.createAsset();
    expect((await rig.call('DELETE', `/api/v2/agents/${manual.id}/credential`)).json.data).toEqual({
      asset_id: manual.id,
      revoked: false,
    });
    const rotate = await rig.call('POST', `/api/v2/agents/${manual.id}/credential/rotate`);
    expect(rotate.status).toBe(409);
    expect(rotate.json.error).toBe('conflict');
    expect(
      (await rig.call('DELETE', '/api/v2/agents/ast_00000000000000000000000000/credential')).status,
    ).toBe(404);
  });

  it('keeps the stored credential when the agent does not confirm a rotation, and runs one rotation at a time', async () => {
    rig = await compose(options);
    const g = rig.gateway;
    const token = await rig.token();
    const enrolled = (await rig.enroll(token.token)).json.data as EnrollResponse;
    const stored = () =>
      rig!.t.hub.database.db
        .selectFrom('agent_credentials')
        .select('credential_hash')
        .where('asset_id', '=', enrolled.asset_id)
        .executeTakeFirstOrThrow();
    g.connected.add(enrolled.asset_id);

    g.reply = (type) => Promise.reject(new AgentTimeoutError(enrolled.asset_id, type));
    const timedOut = await rig.call('POST', `/api/v2/agents/${enrolled.asset_id}/credential/rotate`);
    expect(timedOut.status).toBe(503);
    expect((await stored()).credential_hash).toBe(sha256Hex(enrolled.credential));

    let release: (v: unknown) => void = () => undefined;
    g.reply = () => new Promise((resolve) => (release = resolve));
    const first = rig.call('POST', `/api/v2/agents/${enrolled.asset_id}/credential/rotate`);
    await new Promise((r) => setTimeout(r, 50));
    const second = await rig.call('POST', `/api/v2/agents/${enrolled.asset_id}/credential/rotate`);
    expect(second.status).toBe(409);
    release({ saved: true });
    expect((await first).json.data).toEqual({ asset_id: enrolled.asset_id, delivered: true });
    const sent = g.requests.at(-1)?.payload as { credential: string };
    expect((await stored()).credential_hash).toBe(sha256Hex(sent.credential));
  });
});

describe('enrollment rate limit and CA', () => {
  it('allows 30 enrollments per minute per IP, then 429 with Retry-After', async () => {
    rig = await compose({}, { enrollsPerMinute: 30 });
    const bogus = `sve_${'b'.repeat(52)}`;
    for (let i = 0; i < 30; i++) expect((await rig.enroll(bogus, '127.0.0.1')).status).toBe(401);
    const limited = await rig.enroll(bogus, '127.0.0.1');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    const token = await rig.token();
    expect((await rig.enroll(token.token, '127.0.0.1')).status).toBe(429);
    expect((await rig.enroll(token.token, '127.0.0.2')).status).toBe(201);
    rig.t.clock.advance(60_000);
    expect((await rig.enroll(bogus, '127.0.0.1')).status).toBe(401);
  });

  it('hands out the hub CA and its fingerprint in auto mode', async () => {
    rig = await compose({ env: { SVC_TLS_MODE: 'auto' }, injectAsHttps: true });
    const status = rig.t.hub.tls.status();
    const fingerprint = status.ca?.fingerprint_sha256;
    expect(fingerprint).toMatch(/^[0-9A-F]{2}(:[0-9A-F]{2}){31}$/);
    const token = await rig.token();
    expect(token.ca_fingerprint_sha256).toBe(fingerprint);
    const res = await rig.enroll(token.token);
    expect(res.status).toBe(201);
    const enrolled = res.json.data as EnrollResponse;
    expect(enrolled.ca_pem).toBe(rig.t.hub.tls.caCertificate());
    expect(enrolled.ca_pem).toContain('-----BEGIN CERTIFICATE-----');
    expect(enrolled.ca_fingerprint_sha256).toBe(fingerprint);
  });
});
