/**
 * Property-based fuzzing of the HTTP surface: whatever a client sends (headers, query strings, JSON bodies),
 * the hub answers with a 4xx it chose, never a 5xx (501 for routes not built yet is the one exception).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fullPath, routeList, routes, scopes, type RouteContract } from '@svc/protocol';
import { databaseTargets, startTestHub, type InjectOptions, type TestHub } from '@svc/testkit';

/** The characters of an ASCII alphabet, for fc.constantFrom. */
const chars = (alphabet: string): string[] => Array.from(alphabet);

type Response = Awaited<ReturnType<TestHub['request']>>;

/** Fails (so fast-check shrinks) on any 5xx other than 501, naming the request. */
function expectNoServerError(res: Response, what: string): void {
  if (res.status >= 500 && res.status !== 501) {
    throw new Error(`${what} -> ${res.status} ${res.text.slice(0, 300)}`);
  }
}

const describeInput = (value: unknown): string => {
  const text = (JSON.stringify(value) as string | undefined) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} chars)` : text;
};

// ---- arbitraries -------------------------------------------------------------------------------------

const specialStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '%',
  '_',
  '\\',
  "'",
  '"',
  "' or 1=1 --",
  '%_\\',
  '\u202e',
  '\ufeff',
  '🙂',
  'İ',
  'ß',
  '\r\n',
  '\t',
  '__proto__',
  'constructor',
  '${x}',
);

/** Long strings (up to ~100 KB) made by repeating a short piece, so generation stays cheap. */
const hugeString = fc
  .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }), fc.integer({ min: 100, max: 100_000 }))
  .map(([piece, length]) => piece.repeat(Math.ceil(length / piece.length)).slice(0, length));

const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  { weight: 3, arbitrary: fc.string({ unit: 'binary' }) },
  { weight: 3, arbitrary: specialStrings },
  { weight: 1, arbitrary: hugeString },
);

const nastyNumber = fc.oneof(
  fc.constantFrom(1e308, -1e308, -0, 0, 5e-324, 2 ** 31, 2 ** 53 + 2, -1, 1.5, 3600, 3601),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

const { value: nastyValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    nastyString,
    nastyNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), specialStrings), tie('value'), { maxKeys: 4 }),
  ),
}));

/**
 * `depth` levels of arrays or objects around a leaf (the test process's JSON.stringify stops near 4,000;
 * deeper documents go as raw text below); printed by fast-check as `nest(depth)`, not in full. */
function nest(depth: number, leaf: unknown, asArray: boolean): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = asArray ? [value] : { a: value };
  Object.defineProperty(value, fc.toStringMethod, {
    value: () => `nest(${depth}, ${asArray ? 'array' : 'object'})`,
    enumerable: false,
  });
  return value;
}

const deepValue = fc
  .tuple(fc.integer({ min: 1, max: 1_000 }), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))
  .map(([depth, asArray, leaf]) => nest(depth, leaf, asArray));

/** Percent-encodes the UTF-8 bytes of any text (a lone surrogate goes out as U+FFFD, as any client would). */
function encodeQuery(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9._~-]/.test(c) ? c : `%${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

const fakeId = (prefix: string) =>
  fc
    .string({
      unit: fc.constantFrom(...chars('0123456789abcdefghjkmnpqrstvwxyz')),
      minLength: 26,
      maxLength: 26,
    })
    .map((s) => `${prefix}_${s}`);

const timestampLike = fc.oneof(
  fc
    .date({
      min: new Date('1970-01-01T00:00:00Z'),
      max: new Date('9999-12-31T23:59:59Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString()),
  fc.constantFrom(
    '2030-01-01T00:00:00Z',
    '2020-01-01T00:00:00Z',
    '2030-12-31T23:59:60Z',
    '2016-12-31T23:59:60Z',
    '2030-01-01T00:59:60+01:00',
    '2030-01-01t00:00:00z',
    '2030-01-01 00:00:00Z',
    '2030-01-01T00:00:00+14:00',
    '2030-01-01T00:00:00-23:59',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
    '2030-02-29T00:00:00Z',
    '2028-02-29T00:00:00Z',
    '2030-01-01T00:00:00.123456789Z',
    '2030-01-01T24:00:00Z',
    '2030-01-01T00:00:00',
    '+275760-09-13T00:00:00.000Z',
    'now',
  ),
  nastyString,
);

const scopeLike = fc.oneof(
  fc.constantFrom<string>('*', '**', 'assets:', ':read', 'nope:*', 'ASSETS:READ', ...scopes),
  fc.string({ unit: fc.constantFrom(...chars('abcdefghijklmnopqrstuvwxyz:*')), maxLength: 64 }),
  nastyString,
);

const ipLike = fc.oneof(
  fc.ipV4(),
  fc.ipV6(),
  fc.ipV4Extended(),
  fc.constantFrom('1.2.3.256', '::ffff:1.2.3.4', 'fe80::1%eth0', '::', '0.0.0.0', '01.02.03.04'),
  nastyString,
);

/** Values that look like what a field expects, near misses included; the hub sees them after validation. */
function plausibleFields(ctx: FuzzContext): Record<string, fc.Arbitrary<unknown>> {
  const assetIds = fc.array(fc.oneof(fc.constant(ctx.assetId), fakeId('ast'), nastyString), { maxLength: 8 });
  return {
    name: fc.oneof(
      fc.string({ minLength: 1, maxLength: 120 }),
      fc.string({ unit: 'binary', maxLength: 121 }),
      specialStrings,
    ),
    role: fc.constantFrom('admin', 'operator', 'viewer', 'owner', 'ADMIN', ''),
    scopes: fc.array(scopeLike, { maxLength: 8 }),
    allowed_assets: assetIds,
    asset_ids: assetIds,
    targets: assetIds,
    expires_at: fc.oneof(timestampLike, fc.constant(null)),
    hostname: fc.oneof(fc.domain(), fc.constant(null), nastyString),
    platform: fc.constantFrom('linux', 'windows', 'macos', 'freebsd', 'other', 'Linux', ''),
    ip_addresses: fc.array(ipLike, { maxLength: 6 }),
    mac_address: fc.oneof(
      fc.constantFrom('00:11:22:33:44:55', '00-11-22-33-44-55', 'zz:11:22:33:44:55'),
      fc.constant(null),
      nastyString,
    ),
    tags: fc.array(
      fc.oneof(
        fc.string({ unit: fc.constantFrom(...chars('abc019_.:/-%')), minLength: 1, maxLength: 64 }),
        nastyString,
      ),
      {
        maxLength: 6,
      },
    ),
    description: fc.oneof(fc.string({ maxLength: 2000 }), fc.constant(null), nastyString),
    command: fc.oneof(fc.string({ minLength: 1 }), nastyString),
    timeout: nastyNumber,
    group: fc.oneof(fakeId('grp'), nastyString),
    username: fc.oneof(
      fc.string({ unit: fc.constantFrom(...chars('abcXYZ019._@-')), minLength: 3, maxLength: 64 }),
      nastyString,
    ),
    password: fc.oneof(fc.string({ unit: 'binary', minLength: 10, maxLength: 80 }), nastyString),
  };
}

/** The top-level fields a route's body schema names, and which of them it requires. */
function bodyFields(route: RouteContract): { fields: string[]; required: string[] } {
  const schema: { properties?: object; required?: string[] } = route.body ?? {};
  return { fields: Object.keys(schema.properties ?? {}), required: schema.required ?? [] };
}

interface FuzzContext {
  assetId: string;
  groupId: string;
}

/** Values each field accepts, so that a body can be valid but for the one field being fuzzed. */
function validFields(ctx: FuzzContext): Record<string, fc.Arbitrary<unknown>> {
  return {
    name: fc.string({ minLength: 1, maxLength: 120 }),
    role: fc.constantFrom('admin', 'operator', 'viewer'),
    scopes: fc.uniqueArray(fc.constantFrom('*', 'assets', 'files:*', ...scopes), {
      minLength: 1,
      maxLength: 5,
    }),
    allowed_assets: fc.constant([ctx.assetId]),
    asset_ids: fc.subarray([ctx.assetId]),
    targets: fc.constant([ctx.assetId]),
    group: fc.constant(ctx.groupId),
    expires_at: fc
      .date({
        min: new Date('2027-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
    hostname: fc.domain(),
    platform: fc.constantFrom('linux', 'windows', 'macos', 'freebsd', 'other'),
    ip_addresses: fc.array(fc.oneof(fc.ipV4(), fc.ipV6()), { maxLength: 3 }),
    mac_address: fc.constant('00:11:22:33:44:55'),
    tags: fc.array(fc.stringMatching(/^[A-Za-z0-9_.:/-]{1,20}$/), { maxLength: 4 }),
    description: fc.oneof(fc.string({ maxLength: 200 }), fc.constant(null)),
    command: fc.string({ minLength: 1, maxLength: 50 }),
    timeout: fc.integer({ min: 1, max: 3600 }),
    username: fc.stringMatching(/^[a-zA-Z0-9._@-]{3,30}$/),
    password: fc.string({ minLength: 10, maxLength: 40 }),
  };
}

function bodyArbitrary(route: RouteContract, ctx: FuzzContext): fc.Arbitrary<unknown> {
  const { fields, required } = bodyFields(route);
  const plausible = plausibleFields(ctx);
  const valid = validFields(ctx);
  const knownFieldObject = fc
    .subarray(fields)
    .chain((keys) =>
      fc.tuple(
        ...keys.map((k) =>
          fc.tuple(
            fc.constant(k),
            fc.oneof({ weight: 4, arbitrary: plausible[k] ?? nastyValue }, nastyValue),
          ),
        ),
      ),
    )
    .map((pairs) => Object.fromEntries(pairs));
  // Required fields mostly valid, optional ones absent, valid or near misses: bodies that get past the
  // schema and reach the services and the database.
  const nearValid = fc
    .record(
      Object.fromEntries(
        fields.map((k) => {
          const good = valid[k] ?? nastyValue;
          const near = plausible[k] ?? nastyValue;
          return [
            k,
            required.includes(k)
              ? fc.oneof({ weight: 5, arbitrary: good }, { weight: 1, arbitrary: near })
              : fc.option(fc.oneof({ weight: 2, arbitrary: good }, { weight: 1, arbitrary: near }), {
                  nil: undefined,
                }),
          ];
        }),
      ),
    )
    .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
  return fc.oneof(
    { weight: 1, arbitrary: fc.jsonValue() },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.oneof(fc.string(), specialStrings), nastyValue, { maxKeys: 6 }),
    },
    { weight: 1, arbitrary: deepValue },
    { weight: 1, arbitrary: nastyValue },
    { weight: 4, arbitrary: knownFieldObject },
    { weight: 6, arbitrary: nearValid },
    {
      weight: 1,
      arbitrary: fc
        .tuple(knownFieldObject, fc.oneof(fc.string(), specialStrings), nastyValue)
        .map(([o, k, v]) => ({ ...o, [k]: v })),
    },
  );
}

/** Bytes a JSON parser must refuse (or accept) without falling over. */
const rawJsonText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.json().map((text) => text.slice(0, Math.max(0, text.length - 1))),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'true',
    '0',
    '-0',
    '1e999',
    '-1e999',
    '"\\ud800"',
    '{"name":1e999}',
    '{"name":"\\u0000"}',
    '{"command":"x","timeout":1e999}',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"admin":true}}}',
    '{"name":"a","name":"b"}',
    '\ufeff{"name":"bom"}',
    '{"name":"a"}garbage',
    '{"name":"a"',
    "{'name':'a'}",
    '{name:"a"}',
    '[]',
    '{}',
    '\u0000',
  ),
  fc.integer({ min: 1, max: 200_000 }).map((n) => '['.repeat(n)),
  fc.integer({ min: 1, max: 100_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.integer({ min: 1, max: 50_000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
);

/** Text that the query-string parser has to decode: arbitrary characters, raw bytes, broken escapes. */
const queryText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }).map(encodeQuery),
  fc
    .uint8Array({ maxLength: 12 })
    .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
  fc.constantFrom('%', '%zz', '%e0%a4', '%ff', '%00', '+', '%2B', '&', '=', '#', '[]', '%5B%5D'),
);

const pageValue = fc.oneof(
  fc.integer({ min: -1_000, max: 1_000 }).map(String),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-0',
    '00',
    '007',
    '1.0',
    '1.5',
    '-1',
    '1e2',
    '1e999',
    '0x10',
    '+5',
    ' 5 ',
    'NaN',
    'Infinity',
    'true',
    'null',
    '[]',
    '99999999999999999999',
    '1000000',
    '1000001',
    String(2 ** 31),
    String(2 ** 53 + 1),
  ),
  fc.double({ noNaN: true }).map(String),
  fc.integer().map(String),
  queryText,
);

/**
 * Runs per property, shared between the databases under test (SQLite, and PostgreSQL when
 * SVC_TEST_DATABASE_URL is set) so the whole file stays well under 30 s on a small machine.
 * SVC_FUZZ_SCALE=10 fuzzes ten times longer.
 */
const targets = databaseTargets();
const scale = Math.max(1, Number(process.env.SVC_FUZZ_SCALE) || 1);
const runs = (total: number) => Math.ceil((total * scale) / targets.length);

const listEndpoints = [
  '/api/v2/assets',
  '/api/v2/groups',
  '/api/v2/keys',
  '/api/v2/audit/events',
  '/api/v2/search?q=x',
];
const withQuery = (base: string, query: string) => `${base}${base.includes('?') ? '&' : '?'}${query}`;

// ---- the fuzzing -------------------------------------------------------------------------------------

describe.each(targets)('fuzzing the HTTP surface ($name)', ({ options }) => {
  let t: TestHub;
  let assetId: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestHub(options);
    await t.createAsset({ name: '100% uptime', tags: ['web'] });
    await t.createAsset({ name: 'plain' });
    await t.createAsset({ name: 'under_score', hostname: 'under-score.example', ip_addresses: ['10.0.0.1'] });
    await t.createAsset({ name: 'back\\slash', tags: ['a:b', 'x/y'] });
    await t.createAsset({ name: `it's "quoted"` });
    await t.createAsset({ name: 'list [a,b]' });
    assetId = (await t.createAsset({ name: 'fuzz target', tags: ['fuzz'] })).id;
    // Resources of each kind for the routes that patch one; throwaways, so no fuzzed body can lock us out.
    ids.key = (await t.createKey({ name: 'fuzz key', role: 'viewer', scopes: ['assets:read'] })).id;
    const group = await t.request('POST', '/api/v2/groups', {
      body: { name: 'fuzz group', asset_ids: [assetId] },
    });
    ids.group = (group.json.data as { id: string }).id;
    const user = await t.request('POST', '/api/auth/users', {
      body: { username: 'fuzzuser', password: 'a-long-password', role: 'viewer' },
    });
    ids.user = (user.json.data as { id: string }).id;
    expect([ids.key, ids.group, ids.user].every(Boolean)).toBe(true);
  });

  afterAll(async () => {
    await t.close();
  });

  it('answers 401 to any Authorization header that does not carry a valid key, never 5xx', async () => {
    const header = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 100 }),
      fc.string({ unit: 'grapheme', maxLength: 100 }),
      fc.string({ minLength: 1000, maxLength: 8192 }),
      fc.string({ unit: 'binary' }).map((s) => `Bearer ${s}`),
      fc.string({ minLength: 100, maxLength: 8000 }).map((s) => `Bearer ${s}`),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'bearer  ',
        'Basic dXNlcjpwYXNz',
        'Bearer svc_',
        'Bearer svc_aaaa_',
        'BEARER x y',
      ),
      fc
        .tuple(
          fc.constantFrom('Bearer ', 'bearer ', 'BEARER   ', 'Bearer\t', 'Token '),
          fc.constantFrom(...chars('abcdefghijklmnopqrstuvwxyz234567')),
        )
        .map(([scheme, c]) => `${scheme}svc_${c.repeat(4)}_${c.repeat(52)}`),
      fc
        .string({
          unit: fc.constantFrom(...chars('abcdefghijklmnopqrstuvwxyz234567')),
          minLength: 52,
          maxLength: 52,
        })
        .map((s) => `Bearer svc_abcd_${s}`),
    );
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(header, async (authorization) => {
        tried++;
        const res = await t.request('GET', '/api/v2/assets', { key: null, headers: { authorization } });
        expectNoServerError(res, `Authorization ${describeInput(authorization)}`);
        expect(res.status, describeInput(authorization)).toBe(401);
        expect(res.json.error).toBe('unauthorized');
      }),
      { numRuns: runs(200) },
    );
    expect(tried).toBeGreaterThanOrEqual(runs(200));
  });

  it('never fails on arbitrary page and per_page values, and refuses what is not an integer in range', async () => {
    const query = fc.oneof(
      fc.record({ page: pageValue, per_page: pageValue }, { requiredKeys: [] }).map((q) =>
        Object.entries(q)
          .map(([k, v]) => `${k}=${v}`)
          .join('&'),
      ),
      fc
        .tuple(fc.constantFrom('page', 'per_page'), fc.array(pageValue, { minLength: 2, maxLength: 3 }))
        .map(([name, values]) => values.map((v) => `${name}=${v}`).join('&')),
      fc.constantFrom(
        'page',
        'per_page',
        'page=',
        'per_page=&per_page=',
        'page[]=1',
        'per_page[x]=2',
        'page=1&&',
        '&&&',
      ),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...listEndpoints), query, async (base, q) => {
        const url = withQuery(base, q);
        const res = await t.request('GET', url);
        expectNoServerError(res, url);
        expect([200, 400], url).toContain(res.status);
        if (res.status === 400) {
          expect(res.json.error).toBe('validation');
        } else {
          const meta = res.json.meta;
          expect(Number.isInteger(meta?.per_page) && Number.isInteger(meta?.page), url).toBe(true);
          expect(meta?.per_page).toBeGreaterThanOrEqual(1);
          expect(meta?.per_page).toBeLessThanOrEqual(500);
          expect(meta?.page).toBeGreaterThanOrEqual(1);
          expect(meta?.page).toBeLessThanOrEqual(1_000_000);
          expect((res.json.data as unknown[]).length).toBeLessThanOrEqual(meta?.per_page ?? 0);
        }
      }),
      { numRuns: runs(200) },
    );
  });

  it('pages with any per_page in 1..500 and page in range, echoing them in meta', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...listEndpoints),
        fc.integer({ min: 1, max: 500 }),
        fc.oneof(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 1_000_000 })),
        async (base, perPage, page) => {
          const url = withQuery(base, `page=${page}&per_page=${perPage}`);
          const res = await t.request('GET', url);
          expect(res.status, `${url} ${res.text.slice(0, 200)}`).toBe(200);
          expect(res.json.meta).toMatchObject({ page, per_page: perPage });
          expect((res.json.data as unknown[]).length).toBeLessThanOrEqual(perPage);
          expect(res.json.meta?.total).toBeGreaterThanOrEqual((res.json.data as unknown[]).length);
        },
      ),
      { numRuns: runs(100) },
    );
  });

  it('refuses out-of-range or non-integer page and per_page with 400 validation', async () => {
    const bad = fc.oneof(
      fc.integer({ min: -1_000_000, max: 0 }).map(String),
      fc.integer({ min: 501, max: 2 ** 31 }).map((n) => `per_page=${n}`),
      fc.integer({ min: 1_000_001, max: 2 ** 31 }).map((n) => `page=${n}`),
      fc
        .double({ min: 1.01, max: 499.99, noNaN: true })
        .filter((n) => !Number.isInteger(n))
        .map(String),
      fc.constantFrom('abc', 'NaN', 'Infinity', '1e999', '99999999999999999999'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...listEndpoints),
        bad,
        fc.constantFrom('page', 'per_page'),
        async (base, value, name) => {
          const q = value.includes('=') ? value : `${name}=${value}`;
          const url = withQuery(base, q);
          const res = await t.request('GET', url);
          expect(res.status, url).toBe(400);
          expect(res.json.error).toBe('validation');
          expect(JSON.stringify(res.json.details)).toMatch(/page|per_page/);
        },
      ),
      { numRuns: runs(100) },
    );
  });

  it('never fails on arbitrary audit since/until filters', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('since', 'until'), timestampLike, async (name, value) => {
        const url = `/api/v2/audit/events?${name}=${encodeQuery(value)}`;
        const res = await t.request('GET', url);
        expectNoServerError(res, url);
        expect([200, 400], url).toContain(res.status);
      }),
      { numRuns: runs(100) },
    );
  });

  const bodyRoutes = routeList.filter((r) => r.body && ['POST', 'PUT', 'PATCH'].includes(r.method));
  // A fixed budget shared by the routes (at least 30 and 12 each), so new routes do not slow the file down.
  const bodyRuns = Math.max(30, Math.ceil(2000 / bodyRoutes.length));
  const rawRuns = Math.max(12, Math.ceil(600 / bodyRoutes.length));

  it('has body routes to fuzz', () => {
    expect(bodyRoutes.map((r) => r.name)).toEqual(
      expect.arrayContaining([
        'keys.create',
        'keys.update',
        'assets.create',
        'assets.update',
        'groups.create',
      ]),
    );
    expect(bodyFields(routes['keys.create']).required).toEqual(['name', 'role', 'scopes']);
    expect(bodyFields(routes['assets.create']).fields).toEqual(
      expect.arrayContaining(['name', 'tags', 'ip_addresses']),
    );
  });

  const urlFor = (route: RouteContract, idFor: 'asset' | 'own'): string => {
    const own = route.name.startsWith('keys.')
      ? ids.key
      : route.name.startsWith('groups.')
        ? ids.group
        : route.name.startsWith('users.')
          ? ids.user
          : assetId;
    return fullPath(route)
      .replace('{id}', idFor === 'asset' ? assetId : (own ?? assetId))
      .replace('{name}', 'nginx');
  };

  it.each(bodyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    'never fails on arbitrary JSON bodies: %s',
    async (_label, route) => {
      const target = route.path.includes('{id}')
        ? fc.constantFrom<'asset' | 'own'>('asset', 'own')
        : fc.constant<'asset' | 'own'>('asset');
      await fc.assert(
        fc.asyncProperty(
          bodyArbitrary(route, { assetId, groupId: ids.group ?? '' }),
          target,
          async (body, idFor) => {
            const url = urlFor(route, idFor);
            const res = await t.request(route.method, url, { body });
            expectNoServerError(res, `${route.method} ${url} body ${describeInput(body)}`);
            expect(res.status, `${route.method} ${url} ${describeInput(body)}`).toBeGreaterThanOrEqual(200);
            if (res.status >= 400) expect(typeof res.json.error).toBe('string');
          },
        ),
        { numRuns: runs(bodyRuns) },
      );
    },
  );

  it.each(bodyRoutes.map((r) => [`${r.method} ${r.path}`, r] as const))(
    'never fails on raw bytes sent as application/json: %s',
    async (_label, route) => {
      await fc.assert(
        fc.asyncProperty(rawJsonText, async (rawBody) => {
          const url = urlFor(route, 'asset');
          const options: InjectOptions = { rawBody, headers: { 'content-type': 'application/json' } };
          const res = await t.request(route.method, url, options);
          expectNoServerError(res, `${route.method} ${url} raw ${describeInput(rawBody)}`);
          expect(res.status).toBeGreaterThanOrEqual(200);
        }),
        { numRuns: runs(rawRuns) },
      );
    },
  );

  const paramRoutes = routeList.filter((r) => r.method === 'GET' && /\{(id|name)\}/.test(r.path));

  it('never fails on arbitrary path parameters', async () => {
    expect(paramRoutes.length).toBeGreaterThan(5);
    const param = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }).map(encodeQuery),
      fc.constantFrom(
        '%00',
        'a%00b',
        '%',
        '%zz',
        '..',
        '%2e%2e',
        '%2F',
        'ast_',
        `ast_${'0'.repeat(26)}`,
        'x'.repeat(600),
      ),
      fakeId('ast'),
      fakeId('grp'),
      fakeId('key'),
      fakeId('usr'),
      fc.constant('REAL'),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paramRoutes), param, param, async (route, id, name) => {
        const url = fullPath(route)
          .replace('{id}', id === 'REAL' ? assetId : id)
          .replace('{name}', name === 'REAL' ? 'nginx' : name);
        const res = await t.request('GET', url);
        expectNoServerError(res, `GET ${url}`);
        expect(res.status, url).toBeGreaterThanOrEqual(200);
      }),
      { numRuns: runs(200) },
    );
  });

  it('refuses the inputs that used to reach the database badly with 400 validation', async () => {
    const cases: [string, string, unknown][] = [
      ['GET', '/api/v2/audit/events?since=2016-12-31T23%3A59%3A60Z', undefined],
      ['GET', '/api/v2/search?q=a%00b', undefined],
      ['GET', '/api/v2/search?q=%00', undefined],
      ['GET', `/api/v2/assets/ast_${'0'.repeat(25)}%00`, undefined],
      ['POST', '/api/v2/assets', { name: 'nul\u0000name' }],
      ['POST', '/api/v2/groups', { name: 'g', description: '\u0000' }],
      ['POST', '/api/v2/assets', { name: 'n', tags: ['ok', 'a\u0000b'] }],
      [
        'POST',
        '/api/v2/keys',
        { name: 'k', role: 'viewer', scopes: ['assets:read'], expires_at: '2030-12-31T23:59:60Z' },
      ],
      ['POST', '/api/auth/users', { username: 'nulpass', password: 'abcdefghij\u0000klm', role: 'viewer' }],
    ];
    for (const [method, url, body] of cases) {
      const res = await t.request(method, url, body === undefined ? {} : { body });
      expect(res.status, `${method} ${url} ${res.text.slice(0, 200)}`).toBe(400);
      expect(res.json.error).toBe('validation');
    }
  });

  interface AssetView {
    id: string;
    name: string;
    hostname: string | null;
    ip_addresses: string[];
    tags: string[];
  }

  async function allAssets(): Promise<Map<string, AssetView>> {
    const res = await t.request('GET', '/api/v2/assets?per_page=500');
    expect(res.status).toBe(200);
    return new Map((res.json.data as AssetView[]).map((a) => [a.id, a]));
  }

  const fieldsOf = (a: AssetView) => [a.name, a.hostname ?? '', ...a.ip_addresses, ...a.tags];

  async function searchAssets(q: string): Promise<{ res: Response; hits: { type: string; id: string }[] }> {
    const res = await t.request('GET', `/api/v2/search?type=asset&per_page=500&q=${encodeQuery(q)}`);
    return { res, hits: (res.json.data as { type: string; id: string }[] | undefined) ?? [] };
  }

  it.each(['%', '_', '\\', "'", '"', '"quoted"', '0% up', '[', ',', 'web'])(
    'matches %j literally, not as a LIKE wildcard',
    async (q) => {
      const assets = await allAssets();
      const { res, hits } = await searchAssets(q);
      expect(res.status).toBe(200);
      const names = hits.map((h) => assets.get(h.id)?.name);
      for (const hit of hits) {
        const asset = assets.get(hit.id);
        expect(asset, hit.id).toBeDefined();
        expect(
          fieldsOf(asset as AssetView).some((f) => f.toLowerCase().includes(q.toLowerCase())),
          `${q} hit ${asset?.name}`,
        ).toBe(true);
      }
      const expected = [...assets.values()].filter((a) =>
        fieldsOf(a).some((f) => f.toLowerCase().includes(q.toLowerCase())),
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(new Set(hits.map((h) => h.id))).toEqual(new Set(expected.map((a) => a.id)));
      if (q === '%') {
        expect(names).toContain('100% uptime');
        expect(names).not.toContain('plain');
      }
    },
  );

  it('never fails on arbitrary search text, and every asset hit contains the text', async () => {
    const assets = await allAssets();
    const q = fc.oneof(
      fc.string({ unit: fc.constantFrom(...chars('%_\\\'"[],ab 0-.:/')), minLength: 1, maxLength: 8 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
      specialStrings.filter((s) => s.length > 0),
      fc.string({ minLength: 190, maxLength: 260 }),
    );
    await fc.assert(
      fc.asyncProperty(q, fc.constantFrom('', '&type=asset', '&type=group'), async (text, type) => {
        const url = `/api/v2/search?q=${encodeQuery(text)}${type}`;
        const res = await t.request('GET', url);
        expectNoServerError(res, `search ${describeInput(text)}`);
        expect([200, 400], describeInput(text)).toContain(res.status);
        if (res.status !== 200) return;
        const needle = Buffer.from(text, 'utf8').toString('utf8').trim().toLowerCase();
        for (const hit of res.json.data as { type: string; id: string; name: string }[]) {
          if (hit.type !== 'asset') continue;
          const asset = assets.get(hit.id);
          if (!asset) continue; // created by the body fuzzing after the list was read
          expect(
            fieldsOf(asset).some((f) => f.toLowerCase().includes(needle)),
            `search ${describeInput(text)} hit ${describeInput(fieldsOf(asset))}`,
          ).toBe(true);
        }
      }),
      { numRuns: runs(200) },
    );
  });

  it('still answers hub status after all the fuzzing', async () => {
    const res = await t.request('GET', '/api/v2/hub/status');
    expect(res.status).toBe(200);
    expect((res.json.data as { status: string }).status).toBe('ok');
    const whoami = await t.request('GET', '/api/v2/whoami');
    expect(whoami.status).toBe(200);
  });
});
