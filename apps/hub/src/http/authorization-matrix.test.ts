/**
 * The authorization matrix: every route of the inventory (routeList, never a hand list) against every kind of
 * credential, with the answers of ARCHITECTURE.md section 3. One hub per database, keys made once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fullPath,
  isAdminRole,
  isMutatingMethod,
  newId,
  routeList,
  routerPath,
  scopesCover,
  type AssignableRole,
  type Role,
  type RouteContract,
} from '@svc/protocol';
import { databaseTargets, startTestHub, type InjectResult, type TestHub } from '@svc/testkit';
import { compileValidator } from './validation.js';

/**
 * A minimal valid body for every guarded route with a body schema, so validation cannot mask the guard's
 * answer. Public routes get `{}` instead: a 400 from validation shows they run without any credential.
 */
const sampleBodies: Record<string, unknown> = {
  'keys.create': { name: 'matrix', role: 'viewer', scopes: ['assets:read'] },
  'keys.update': { name: 'matrix renamed' },
  'assets.create': { name: 'matrix-asset' },
  'assets.update': { description: 'touched by the matrix' },
  'exec.single': { command: 'uptime' },
  'exec.many': { command: 'uptime' },
  'sessions.create': { kind: 'terminal', cols: 80, rows: 24 },
  'groups.create': { name: 'matrix-group' },
  'groups.update': { name: 'matrix-group-renamed' },
  'snippets.create': { name: 'matrix-snippet', text: 'uptime' },
  'snippets.update': { name: 'matrix-snippet-renamed' },
  // An asset that does not exist: refused (400) once past the guard.
  'bookmarks.create': { asset_id: newId('asset'), directory: '/tmp' },
  'bookmarks.update': { name: 'matrix-bookmark' },
  'filters.create': { name: 'matrix-filter', criteria: { status: 'online' } },
  'filters.update': { name: 'matrix-filter-renamed' },
  'users.create': { username: 'matrix-user', password: 'correct horse battery', role: 'viewer' },
  'users.update': { role: 'viewer' },
  'settings.tlsUpload': {
    certificate: '-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n',
    private_key: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n',
  },
  'auth.2faVerify': { code: '123456' },
  'auth.2faDisable': { code: '123456' },
  'auth.changePassword': { current_password: 'the current one', new_password: 'a new passphrase' },
  'auth.2faRecoveryCodes': { code: '123456' },
  'files.write': { path: '/tmp/matrix.txt', content_base64: 'aGVsbG8=' },
  'files.mkdir': { path: '/tmp/matrix-dir' },
  'files.rename': { from: '/tmp/matrix.txt', to: '/tmp/matrix-2.txt' },
  'files.copy': { from: '/tmp/matrix.txt', to: '/tmp/matrix-3.txt' },
  'system.killProcess': { pid: 4_000_000 },
  'enrollment.create': { name: 'matrix token' },
  'settings.domainUpdate': { 'notifications.min_severity': 'warning' },
  'actions.create': { name: 'matrix-action', command: 'true', group: newId('group') },
  'schedules.create': { name: 'matrix-schedule', cron: '0 3 * * *', command: 'true', group: newId('group') },
  'schedules.update': { enabled: false },
  'maintenance.create': {
    name: 'matrix-window',
    reason: 'matrix',
    group_ids: [newId('group')],
    cron: '0 3 * * *',
    duration_minutes: 60,
  },
  'maintenance.update': { reason: 'matrix again' },
  // A dry run on a group that does not exist: refused (404) once past the guard, nothing runs.
  'updates.runs.create': { group: newId('group'), mode: 'dry_run', selection: 'all' },
  // Paused, and to a documentation address: the matrix never makes a check run.
  'checks.create': { name: 'matrix-check', kind: 'tcp', target: '198.51.100.7:443', enabled: false },
  'checks.update': { name: 'matrix-check-renamed' },
  'checks.from_suggestion': { suggestion_id: newId('discoverySuggestion') },
  'actions.update': { name: 'matrix-action-renamed' },
  'bulk.serviceAction': { service: 'nginx', action: 'restart', group: newId('group') },
  'alerts.silence': { duration_minutes: 5 },
  'incidents.replaceReview': { summary: '', cause: '', follow_ups: [] },
  'incidents.updateReview': { summary: 'matrix' },
  'alerts.ruleCreate': { name: 'matrix-rule', kind: 'offline' },
  'alerts.ruleUpdate': { name: 'matrix-rule-renamed' },
  'webhooks.create': { name: 'matrix-hook', url: 'https://198.51.100.7/hook' },
  'webhooks.replace': { name: 'matrix-hook', url: 'https://198.51.100.7/hook', events: [], enabled: false },
  'webhooks.update': { enabled: false },
  'notifications.create': {
    name: 'matrix-channel',
    kind: 'ntfy',
    settings: { url: 'https://198.51.100.7/t' },
  },
  'notifications.update': { enabled: false },
  'notifications.pushSubscribe': {
    device_id: 'matrix-device',
    endpoint: 'https://198.51.100.7/push/matrix',
    keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) },
  },
  'mobile.registrationOptions': { device_id: 'matrix-device' },
  'mobile.register': { device_id: 'matrix-device', response: {} },
  'mobile.proofOptions': { purpose: 'quick-action:incident.resolve:inc_matrix' },
  'mobile.proof': { purpose: 'quick-action:incident.resolve:inc_matrix', response: {} },
  'mobile.quickAction': { action: 'incident.resolve', id: 'inc_matrix', proof: 'matrix-proof' },
  'mobile.telemetry': {
    device_id: 'matrix-device',
    events: [{ name: 'app.opened', ts: '2026-01-01T00:00:00.000Z' }],
  },
  'discovery.run': {},
  'discovery.accept': {},
  'connectors.create': {
    kind: 'virt',
    name: 'matrix-pve',
    base_url: 'https://198.51.100.7:8006',
    credentials: 'root@pam!matrix=00000000-0000-0000-0000-000000000000',
    enabled: false,
  },
  'connectors.update': { enabled: false },
  'homeauto.callService': { entity_id: ['light.kitchen'] },
  'dependencies.createLink': { from: newId('asset'), to: newId('asset') },
  'desktop.setCredentials': { password: 'vnc-pass' },
  'desktop.createSession': {},
  'prometheus.exporter': { default_port: 9100, group_ports: [] },
  'prometheus.remoteWrite': { enabled: false, url: 'https://198.51.100.7/api/v1/write', auth: 'none' },
};

/** Query strings for routes whose query schema has required fields. */
const sampleQueries: Record<string, string> = {
  search: 'q=web',
  'files.list': 'path=/tmp',
  'files.read': 'path=/tmp/matrix.txt',
  'files.delete': 'path=/tmp/matrix-dir',
  'metrics.top': 'metric=cpu',
};

/** Bodies that fail validation in three ways: an unknown field, a wrong type, not JSON at all. */
const invalidBodies: readonly { label: string; rawBody: string }[] = [
  { label: 'unknown field', rawBody: JSON.stringify({ not_a_field: true }) },
  { label: 'wrong type', rawBody: JSON.stringify([1, 2, 3]) },
  { label: 'not JSON', rawBody: '{"name": ' },
];

const guarded = routeList.filter((r) => r.auth !== 'public');
const publicRoutes = routeList.filter((r) => r.auth === 'public');
const assetRoutes = routeList.filter((r) => r.asset !== undefined);
/** Asset routes whose guard reaches the asset check for an operator: admin routes refuse on the role first. */
const operatorAssetRoutes = assetRoutes.filter((r) => r.auth !== 'admin');
const guardedBodyRoutes = guarded.filter((r) => r.body !== undefined);
const deletesAnAsset = (r: RouteContract) => r.method === 'DELETE' && r.asset !== undefined;

/** Credentials that do not authenticate: every guarded route must answer 401. */
const unauthenticated = [
  'none',
  'malformed: Basic scheme',
  'malformed: Bearer without a key',
  'malformed: Bearer with text that is not a key',
  'malformed: Bearer with a truncated key',
  'malformed: a real key without a scheme',
  'malformed: a real key with a trailing word',
  'malformed: Token scheme with a real key',
  'well-formed unknown key',
  'real prefix with a wrong secret',
  'expired key',
  'revoked key',
] as const;

/** Valid keys, each described by what the guard looks at. */
const keyLabels = [
  'key lacking the scope',
  'viewer with *',
  'operator with *',
  'admin with *',
  'restricted key, other asset',
  'restricted key, own asset',
] as const;

type CredentialLabel = (typeof unauthenticated)[number] | (typeof keyLabels)[number];
const credentialLabels: readonly CredentialLabel[] = [...unauthenticated, ...keyLabels];

interface KeyProfile {
  role: Role;
  scopes: readonly string[];
  restricted: boolean;
}

type Refusal = { status: number; error: string };
type Expectation = Refusal | 'passes';

/**
 * What a valid API key gets from the guard (ARCHITECTURE.md section 3, spec 5.1, and the contract's flags),
 * in the order the refusals are documented: session-only routes, the viewer's read-only role, admin areas,
 * scopes, routes closed to restricted keys, and assets outside the key's list (404, as if absent).
 */
function guardAnswer(route: RouteContract, key: KeyProfile, assetVisible: boolean): Expectation {
  if (route.auth === 'public') return 'passes';
  if (route.sessionOnly) return { status: 403, error: 'forbidden' };
  if (key.role === 'viewer' && isMutatingMethod(route.method) && !route.selfService && !route.carriesCalls)
    return { status: 403, error: 'read_only_role' };
  // Decision 0005: a viewer reads no file contents, logs, process or cron command lines.
  if (key.role === 'viewer' && route.readsSecrets) return { status: 403, error: 'read_only_role' };
  if (route.auth === 'admin' && !isAdminRole(key.role)) return { status: 403, error: 'admin_required' };
  if (route.auth === 'scope' && (route.scope === undefined || !scopesCover(key.scopes, route.scope)))
    return { status: 403, error: 'insufficient_scope' };
  if (route.unrestrictedOnly && key.restricted) return { status: 403, error: 'forbidden' };
  if (route.asset && !assetVisible) return { status: 404, error: 'not_found' };
  return 'passes';
}

const requestIdPattern = /^req_[0-9a-hjkmnp-tv-z]{26}$/;

/** What is wrong with a refusal, or null: status, code, envelope shape, WWW-Authenticate on 401. */
function refusalProblem(res: InjectResult, expected: Refusal, method: string): string | null {
  const { status, error } = expected;
  if (res.status !== status) return `got ${res.status} ${res.json.error ?? res.text.slice(0, 80)}`;
  if (method === 'HEAD') return null;
  const body = res.json;
  if (body.error !== error) return `got error ${String(body.error)}, expected ${error}`;
  if (body.status !== status)
    return `envelope status ${String(body.status)} is not the HTTP status ${status}`;
  if (typeof body.request_id !== 'string' || !requestIdPattern.test(body.request_id))
    return `request_id ${String(body.request_id)} is not req_…`;
  if (typeof body.message !== 'string' || body.message.length === 0) return 'no message';
  if ('data' in body) return 'an error carries data';
  if (status === 401 && res.headers['www-authenticate'] !== 'Bearer') return 'no WWW-Authenticate: Bearer';
  return null;
}

/** The guard let the request through: whatever the handler says, it is not an authentication refusal. */
function passProblem(res: InjectResult, route: RouteContract): string | null {
  if (res.status === 401 || res.status === 403)
    return `refused with ${res.status} ${String(res.json.error)}: ${String(res.json.message)}`;
  if (route.asset && res.status === 404)
    return `404 on an asset the key may see: ${String(res.json.message)}`;
  if (res.status === 500) return `internal error ${res.text.slice(0, 120)}`;
  return null;
}

function requiredFields(schema: object | undefined): string[] {
  if (!schema || !('required' in schema) || !Array.isArray(schema.required)) return [];
  return schema.required.filter((field): field is string => typeof field === 'string');
}

function propertyNames(schema: object | undefined): string[] {
  if (!schema || !('properties' in schema) || typeof schema.properties !== 'object' || !schema.properties)
    return [];
  return Object.keys(schema.properties);
}

function uncovered(covered: ReadonlySet<string>, label: CredentialLabel): string[] {
  return routeList
    .map((r) => `${r.method} ${routerPath(r)}`)
    .filter((route) => !covered.has(`${label}|${route}`))
    .map((route) => `${label}: ${route}`);
}

describe.each(databaseTargets())('authorization matrix on $name', ({ options }) => {
  let t: TestHub;
  let assetA: string; // visible to the restricted key
  let assetB: string; // exists, but outside the restricted key's list
  let spareAssets: string[]; // visible to the restricted key, one per route that deletes an asset
  const unrelatedId = newId('group');
  const headers = new Map<CredentialLabel, (route: RouteContract) => string | null>();
  const profiles = new Map<CredentialLabel, (route: RouteContract) => KeyProfile>();
  const covered = new Set<string>();

  function urlFor(route: RouteContract, assetId: string): string {
    const path = fullPath(route).replace(/\{([a-zA-Z_]+)\}/g, (_whole, name: string) => {
      if (route.asset && name === route.asset.param)
        return route.asset.form === 'compound' ? `${assetId}:web-1` : assetId;
      if (name === 'name') return 'nginx';
      if (name === 'domain') return 'notifications';
      return unrelatedId;
    });
    const query = sampleQueries[route.name];
    return query ? `${path}?${query}` : path;
  }

  async function send(
    route: RouteContract,
    label: CredentialLabel,
    options: { assetId?: string; rawBody?: string; method?: string; remoteAddress?: string } = {},
  ): Promise<InjectResult> {
    covered.add(`${label}|${route.method} ${routerPath(route)}`);
    const header = headers.get(label)?.(route);
    if (header === undefined) throw new Error(`no credential for ${label}`);
    const requestHeaders: Record<string, string> = header === null ? {} : { authorization: header };
    const sample = route.auth === 'public' ? {} : sampleBodies[route.name];
    const rawBody =
      options.rawBody ??
      (route.body === undefined || sample === undefined ? undefined : JSON.stringify(sample));
    if (rawBody !== undefined) requestHeaders['content-type'] = 'application/json';
    return t.request(options.method ?? route.method, urlFor(route, options.assetId ?? assetA), {
      key: null,
      headers: requestHeaders,
      ...(rawBody !== undefined ? { rawBody } : {}),
      ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
    });
  }

  /** An asset for a route that must pass: a fresh one when the route deletes it, so asset A survives. */
  async function assetForPassing(route: RouteContract): Promise<string> {
    return deletesAnAsset(route) ? (await t.createAsset({ name: 'doomed' })).id : assetA;
  }

  /**
   * Sends `label` to every route of the inventory and collects every answer that differs from the expected
   * one; `tally` counts the expected answers so a test can show the matrix is not trivially "passes".
   */
  async function runMatrix(
    label: CredentialLabel,
    expected: (route: RouteContract) => Expectation,
    assetFor: (route: RouteContract) => Promise<string> | string = assetForPassing,
  ): Promise<{ problems: string[]; tally: Map<string, number> }> {
    const problems: string[] = [];
    const tally = new Map<string, number>();
    for (const route of routeList) {
      const expectation = expected(route);
      const outcome = expectation === 'passes' ? 'passes' : expectation.error;
      tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
      const res = await send(route, label, { assetId: await assetFor(route) });
      const problem =
        expectation === 'passes' ? passProblem(res, route) : refusalProblem(res, expectation, route.method);
      if (problem) problems.push(`${route.method} ${fullPath(route)} (${route.name}): ${problem}`);
    }
    return { problems, tally };
  }

  function keyMatrix(label: (typeof keyLabels)[number], visible: boolean) {
    const profile = profiles.get(label);
    if (!profile) throw new Error(`no profile for ${label}`);
    return (route: RouteContract) => guardAnswer(route, profile(route), visible);
  }

  beforeAll(async () => {
    t = await startTestHub(options);
    assetA = (await t.createAsset({ name: 'matrix-a' })).id;
    assetB = (await t.createAsset({ name: 'matrix-b' })).id;
    spareAssets = [];
    for (const _route of routeList.filter(deletesAnAsset))
      spareAssets.push((await t.createAsset({ name: 'matrix-spare' })).id);

    const owner = t.ownerKey;
    const wrongSecret = owner.slice(0, 9) + (owner.endsWith('a') ? 'b' : 'a').repeat(52);
    const fixed = (label: CredentialLabel, value: string | null) => headers.set(label, () => value);
    const bearer = (key: string) => `Bearer ${key}`;

    fixed('none', null);
    fixed('malformed: Basic scheme', 'Basic dXNlcjpwYXNzd29yZA==');
    fixed('malformed: Bearer without a key', 'Bearer');
    fixed('malformed: Bearer with text that is not a key', 'Bearer not-a-key');
    fixed('malformed: Bearer with a truncated key', bearer(owner.slice(0, -1)));
    fixed('malformed: a real key without a scheme', owner);
    fixed('malformed: a real key with a trailing word', `Bearer ${owner} extra`);
    fixed('malformed: Token scheme with a real key', `Token ${owner}`);
    fixed('well-formed unknown key', bearer(`svc_abcd_${'a'.repeat(52)}`));
    fixed('real prefix with a wrong secret', bearer(wrongSecret));

    const expiring = await t.createKey({
      role: 'admin',
      scopes: ['*'],
      expires_at: new Date(t.clock.now().getTime() + 60 * 60 * 1000).toISOString(),
    });
    const revoked = await t.createKey({ role: 'admin', scopes: ['*'] });
    for (const key of [expiring, revoked]) {
      const before = await t.request('GET', '/api/v2/whoami', { key: key.raw_key });
      if (before.status !== 200) throw new Error(`a fresh key should work: ${before.text}`);
    }
    t.clock.advance(2 * 60 * 60 * 1000);
    const revocation = await t.request('DELETE', `/api/v2/keys/${revoked.id}`);
    if (revocation.status !== 200) throw new Error(`revocation failed: ${revocation.text}`);
    fixed('expired key', bearer(expiring.raw_key));
    fixed('revoked key', bearer(revoked.raw_key));

    // Two operator keys with disjoint scopes: each route is sent the one that does not cover its scope.
    const hubOnly = (await t.createKey({ role: 'operator', scopes: ['hub:read'] })).raw_key;
    const auditOnly = (await t.createKey({ role: 'operator', scopes: ['audit:read'] })).raw_key;
    const coversHub = (route: RouteContract) =>
      route.scope !== undefined && scopesCover(['hub:read'], route.scope);
    headers.set('key lacking the scope', (route) => bearer(coversHub(route) ? auditOnly : hubOnly));
    profiles.set('key lacking the scope', (route) => ({
      role: 'operator',
      scopes: coversHub(route) ? ['audit:read'] : ['hub:read'],
      restricted: false,
    }));

    const plain: [(typeof keyLabels)[number], AssignableRole][] = [
      ['viewer with *', 'viewer'],
      ['operator with *', 'operator'],
      ['admin with *', 'admin'],
    ];
    for (const [label, role] of plain) {
      fixed(label, bearer((await t.createKey({ role, scopes: ['*'] })).raw_key));
      profiles.set(label, () => ({ role, scopes: ['*'], restricted: false }));
    }
    const restricted = await t.createKey({
      role: 'operator',
      scopes: ['*'],
      allowed_assets: [assetA, ...spareAssets],
    });
    for (const label of ['restricted key, other asset', 'restricted key, own asset'] as const) {
      fixed(label, bearer(restricted.raw_key));
      profiles.set(label, () => ({ role: 'operator', scopes: ['*'], restricted: true }));
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it('has a valid sample body for every guarded route with a body, and a query for every required query', () => {
    expect(Object.keys(sampleBodies).sort()).toEqual(guardedBodyRoutes.map((r) => r.name).sort());
    for (const route of guardedBodyRoutes) {
      const validate = compileValidator({ schema: route.body as object, httpPart: 'body' });
      expect(validate(structuredClone(sampleBodies[route.name])), route.name).toBe(true);
    }
    for (const route of routeList) {
      if (requiredFields(route.query).length === 0) continue;
      const query = sampleQueries[route.name];
      expect(query, `${route.name} needs a sample query`).toBeDefined();
      const validate = compileValidator({ schema: route.query as object, httpPart: 'querystring' });
      expect(validate(Object.fromEntries(new URLSearchParams(query))), route.name).toBe(true);
    }
  });

  it.each(unauthenticated)(
    '%s: every guarded route answers 401 unauthorized, every public route answers without a credential',
    async (label) => {
      const { problems, tally } = await runMatrix(label, (route) =>
        route.auth === 'public' ? 'passes' : { status: 401, error: 'unauthorized' },
      );
      expect(problems).toEqual([]);
      expect(tally.get('unauthorized')).toBe(guarded.length);
    },
  );

  it('none: HEAD on every guarded GET route is refused as well', async () => {
    const problems: string[] = [];
    for (const route of guarded.filter((r) => r.method === 'GET')) {
      const res = await send(route, 'none', { method: 'HEAD' });
      const problem = refusalProblem(res, { status: 401, error: 'unauthorized' }, 'HEAD');
      if (problem) problems.push(`HEAD ${fullPath(route)}: ${problem}`);
    }
    expect(problems).toEqual([]);
  });

  it('public routes ignore whatever credential comes along, even over plain HTTP from afar', async () => {
    expect(publicRoutes.length).toBeGreaterThan(0);
    const problems: string[] = [];
    for (const route of publicRoutes) {
      const bare = await send(route, 'none', { remoteAddress: '203.0.113.9' });
      for (const label of ['well-formed unknown key', 'malformed: Basic scheme', 'admin with *'] as const) {
        const res = await send(route, label, { remoteAddress: '203.0.113.9' });
        const problem = passProblem(res, route);
        if (problem) problems.push(`${route.name} with ${label}: ${problem}`);
        if (res.status !== bare.status)
          problems.push(`${route.name}: ${res.status} with ${label}, ${bare.status} without a credential`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('key lacking the scope: 403 insufficient_scope on scoped routes, 403 admin_required on admin routes', async () => {
    const { problems, tally } = await runMatrix(
      'key lacking the scope',
      keyMatrix('key lacking the scope', true),
    );
    expect(problems).toEqual([]);
    expect(tally.get('insufficient_scope')).toBe(guarded.filter((r) => r.auth === 'scope').length);
    expect(tally.get('admin_required')).toBeGreaterThanOrEqual(8);
  });

  it('viewer with *: every mutation is 403 read_only_role, admin reads are 403 admin_required, the rest pass', async () => {
    const { problems, tally } = await runMatrix('viewer with *', keyMatrix('viewer with *', true));
    expect(problems).toEqual([]);
    expect(tally.get('read_only_role')).toBeGreaterThan(30);
    expect(tally.get('passes')).toBeGreaterThan(30);
  });

  it('operator with *: 403 admin_required on every admin route, every other route passes the guard', async () => {
    const { problems, tally } = await runMatrix('operator with *', keyMatrix('operator with *', true));
    expect(problems).toEqual([]);
    expect(tally.get('admin_required')).toBe(
      guarded.filter((r) => r.auth === 'admin' && !r.sessionOnly).length,
    );
  });

  it('admin with *: every route passes the guard (console-session routes excepted)', async () => {
    const { problems, tally } = await runMatrix('admin with *', keyMatrix('admin with *', true));
    expect(problems).toEqual([]);
    expect(tally.get('passes')).toBe(routeList.filter((r) => !r.sessionOnly).length);
  });

  it('restricted key, other asset: 404 not_found on every asset route; 403 forbidden on unrestricted-only routes', async () => {
    expect(assetRoutes.length).toBeGreaterThan(30);
    const { problems, tally } = await runMatrix(
      'restricted key, other asset',
      keyMatrix('restricted key, other asset', false),
      () => assetB,
    );
    expect(problems).toEqual([]);
    expect(tally.get('not_found')).toBe(operatorAssetRoutes.length);
    expect(tally.get('forbidden')).toBeGreaterThanOrEqual(routeList.filter((r) => r.unrestrictedOnly).length);
  });

  it('restricted key, other asset: the 404 is the one a random id gets', async () => {
    const randomId = newId('asset');
    const problems: string[] = [];
    const shape = (res: InjectResult, id: string) => ({
      status: res.status,
      error: res.json.error,
      message: String(res.json.message).replaceAll(id, '<id>'),
      fields: Object.keys(res.json).sort(),
      headers: Object.keys(res.headers)
        .filter((h) => h !== 'date' && h !== 'content-length')
        .sort(),
    });
    for (const route of operatorAssetRoutes) {
      const hidden = shape(await send(route, 'restricted key, other asset', { assetId: assetB }), assetB);
      const missing = shape(
        await send(route, 'restricted key, other asset', { assetId: randomId }),
        randomId,
      );
      if (hidden.status !== 404) problems.push(`${route.name}: hidden asset answered ${hidden.status}`);
      if (JSON.stringify(hidden) !== JSON.stringify(missing))
        problems.push(`${route.name}: ${JSON.stringify(hidden)} differs from ${JSON.stringify(missing)}`);
    }
    expect(problems).toEqual([]);
  });

  it('restricted key, own asset: every asset route passes the guard (never 404 or 403)', async () => {
    const spares = [...spareAssets];
    const { problems, tally } = await runMatrix(
      'restricted key, own asset',
      keyMatrix('restricted key, own asset', true),
      // A route that deletes its asset gets one of the key's spare assets, so A stays for the others.
      (route) => (deletesAnAsset(route) ? (spares.shift() ?? assetA) : assetA),
    );
    expect(problems).toEqual([]);
    expect(tally.get('passes')).toBeGreaterThan(assetRoutes.length);
  });

  describe('authentication and authorization come before validation', () => {
    it('an unauthenticated request with an invalid body gets 401', async () => {
      const problems: string[] = [];
      for (const route of guardedBodyRoutes) {
        for (const invalid of invalidBodies) {
          const res = await send(route, 'none', { rawBody: invalid.rawBody });
          const problem = refusalProblem(res, { status: 401, error: 'unauthorized' }, route.method);
          if (problem) problems.push(`${route.name} with ${invalid.label}: ${problem}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('a key the guard refuses, with an invalid body, gets the same 403 as with a valid one', async () => {
      const problems: string[] = [];
      let refusals = 0;
      for (const route of guardedBodyRoutes) {
        for (const label of ['key lacking the scope', 'viewer with *'] as const) {
          const expected = keyMatrix(label, true)(route);
          if (expected === 'passes') continue;
          refusals += 1;
          for (const invalid of invalidBodies) {
            const res = await send(route, label, { rawBody: invalid.rawBody });
            const problem = refusalProblem(res, expected, route.method);
            if (problem) problems.push(`${route.name} as ${label} with ${invalid.label}: ${problem}`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(refusals).toBeGreaterThanOrEqual(guardedBodyRoutes.length);
    });

    it('a restricted key with an invalid body on another asset gets 404, not 400', async () => {
      const routes = guardedBodyRoutes.filter((r) => r.asset);
      expect(routes.length).toBeGreaterThan(0);
      const problems: string[] = [];
      for (const route of routes) {
        for (const invalid of invalidBodies) {
          const res = await send(route, 'restricted key, other asset', {
            assetId: assetB,
            rawBody: invalid.rawBody,
          });
          const problem = refusalProblem(res, { status: 404, error: 'not_found' }, route.method);
          if (problem) problems.push(`${route.name} with ${invalid.label}: ${problem}`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('an unauthenticated request with an invalid query gets 401; with a key it gets 400', async () => {
      const paged = guarded.filter(
        (r) => r.method === 'GET' && r.query !== undefined && propertyNames(r.query).includes('per_page'),
      );
      expect(paged.length).toBeGreaterThan(3);
      for (const route of paged) {
        const url = `${fullPath(route)}?per_page=0`;
        const anonymous = await t.request('GET', url, { key: null });
        expect(
          refusalProblem(anonymous, { status: 401, error: 'unauthorized' }, 'GET'),
          route.name,
        ).toBeNull();
        const owner = await t.request('GET', url);
        expect(refusalProblem(owner, { status: 400, error: 'validation' }, 'GET'), route.name).toBeNull();
      }
    });

    it('the refusals above are the guard: a key it lets through gets 400 for the same invalid body', async () => {
      const owner: KeyProfile = { role: 'owner', scopes: ['*'], restricted: false };
      const routes = guardedBodyRoutes.filter((r) => guardAnswer(r, owner, true) === 'passes');
      expect(routes.length).toBeGreaterThan(5);
      for (const route of routes) {
        const res = await t.request(route.method, urlFor(route, assetA), {
          rawBody: invalidBodies[0]!.rawBody,
          headers: { 'content-type': 'application/json' },
        });
        expect(
          refusalProblem(res, { status: 400, error: 'validation' }, route.method),
          route.name,
        ).toBeNull();
      }
    });
  });

  it('met every route of the inventory with every credential (the matrix walks routeList)', () => {
    const missing = credentialLabels.flatMap((label) => uncovered(covered, label));
    expect(missing).toEqual([]);
    // The check can fail: a route the matrix skipped is reported.
    const partial = new Set(covered);
    const first = routeList[0]!;
    partial.delete(`none|${first.method} ${routerPath(first)}`);
    expect(uncovered(partial, 'none')).toEqual([`none: ${first.method} ${routerPath(first)}`]);
  });
});
