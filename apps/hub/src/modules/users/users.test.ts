import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isId, type AuditEvent, type User } from '@svc/protocol';
import { createHub, parseEnv, type Hub } from '@svc/hub';
import { createPgSchema, databaseTargets, type TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { verifyPassword } from '../../platform/crypto.js';
import { maskSecret, ownerCredentialsFile } from './owner-bootstrap.js';

/** A pino logger whose lines land in memory, so a test can read what an operator would see. */
function memoryLogger() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

function readCredentials(file: string): Record<string, string> {
  const entries = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes('=') && !line.startsWith('#'))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);
  return Object.fromEntries(entries);
}

async function usersNamed(hub: Hub, username: string) {
  return hub.database.db.selectFrom('users').selectAll().where('username', '=', username).execute();
}

async function auditActions(t: TestHub, targetId: string): Promise<AuditEvent[]> {
  const res = await t.request('GET', `/api/v2/audit/events?target_id=${targetId}`);
  expect(res.status).toBe(200);
  return res.json.data as AuditEvent[];
}

describe.each(databaseTargets())('owner bootstrap ($name)', ({ options }) => {
  let dataDir: string;
  let pgSchema: Awaited<ReturnType<typeof createPgSchema>> | null = null;
  const opened: Hub[] = [];

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hub-owner-'));
    if (options.postgresUrl) pgSchema = await createPgSchema(options.postgresUrl);
  });

  afterEach(async () => {
    for (const hub of opened.splice(0)) await hub.close();
    await pgSchema?.drop();
    pgSchema = null;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(logger: ReturnType<typeof memoryLogger>['logger']): Promise<Hub> {
    const config = parseEnv(
      {
        SVC_DATA_DIR: dataDir,
        SVC_TLS_MODE: 'disabled',
        SVC_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        ...(options.postgresUrl ? { SVC_DATABASE_URL: options.postgresUrl } : {}),
      },
      dataDir,
    );
    const hub = await createHub({
      config,
      logger,
      ...(pgSchema ? { database: { pgSchema: pgSchema.schema } } : {}),
    });
    opened.push(hub);
    return hub;
  }

  it('creates exactly one owner whose password, and no token, is in a 0600 file', async () => {
    const hub = await open(memoryLogger().logger);
    const file = path.join(dataDir, ownerCredentialsFile);

    expect(hub.owner.created).toBe(true);
    expect(hub.owner.credentialsPath).toBe(file);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const credentials = readCredentials(file);
    expect(Object.keys(credentials).sort()).toEqual(['password', 'username']);
    expect(credentials.username).toBe('owner');

    const owners = await hub.database.db
      .selectFrom('users')
      .selectAll()
      .where('role', '=', 'owner')
      .execute();
    expect(owners).toHaveLength(1);
    expect(owners[0]?.username).toBe('owner');
    expect(await verifyPassword(credentials.password ?? '', owners[0]?.password_hash ?? '')).toBe(true);
    expect(await verifyPassword(`${credentials.password}x`, owners[0]?.password_hash ?? '')).toBe(false);
    expect(owners[0]?.must_change_password).toBe(1);
    // No key exists until the owner makes one: nothing in the data directory works as an owner token.
    expect(await hub.database.db.selectFrom('api_keys').select('id').execute()).toEqual([]);
  });

  it('logs a masked hint and the file path, never the password', async () => {
    const { logger, lines } = memoryLogger();
    const hub = await open(logger);
    const { password } = readCredentials(path.join(dataDir, ownerCredentialsFile));
    expect(password).toBeTruthy();

    const log = lines.join('\n');
    const hint = lines.find((line) => line.includes(hub.owner.credentialsPath));
    expect(hint, log).toBeDefined();
    expect(hint).toContain(maskSecret(password ?? ''));
    expect(log).not.toContain(password);
    // Not even a long tail of it: the hint shows two characters.
    expect(log).not.toContain(password?.slice(2, 12));
  });

  it('does not make a second owner, nor rewrite the file, on the next start', async () => {
    const first = await open(memoryLogger().logger);
    const file = path.join(dataDir, ownerCredentialsFile);
    const textBefore = fs.readFileSync(file, 'utf8');
    const mtimeBefore = fs.statSync(file).mtimeMs;
    const keysBefore = await first.database.db.selectFrom('api_keys').select('id').execute();
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const { logger, lines } = memoryLogger();
    const second = await open(logger);

    expect(second.owner.created).toBe(false);
    expect(second.owner.password).toBeUndefined();
    expect(await second.database.db.selectFrom('users').select('id').execute()).toHaveLength(1);
    expect(await second.database.db.selectFrom('api_keys').select('id').execute()).toEqual(keysBefore);
    expect(fs.readFileSync(file, 'utf8')).toBe(textBefore);
    expect(fs.statSync(file).mtimeMs).toBe(mtimeBefore);
    expect(lines.join('\n')).not.toContain('owner account created');
  });
});

describe.each(databaseTargets())('/api/auth/users ($name)', ({ options }) => {
  const hub = useTestHub(options, 'per-test');

  async function createUser(body: Record<string, unknown>, key?: string) {
    const t = hub();
    return t.request('POST', '/api/auth/users', { body, ...(key ? { key } : {}) });
  }

  async function ownerRow() {
    const t = hub();
    const [row] = await usersNamed(t.hub, 'owner');
    if (!row) throw new Error('no owner row');
    return row;
  }

  it('is for admins only: operators and viewers get 403, no key 401', async () => {
    const t = hub();
    const operator = await t.createKey({ role: 'operator', scopes: ['*'] });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    const target = (await ownerRow()).id;

    for (const key of [operator.raw_key, viewer.raw_key]) {
      const list = await t.request('GET', '/api/auth/users', { key });
      expect(list.status).toBe(403);
      expect(list.json.error).toBe('admin_required');
    }
    const create = await createUser(
      { username: 'mallory', password: 'long enough pw', role: 'admin' },
      operator.raw_key,
    );
    expect(create.status).toBe(403);
    expect(create.json.error).toBe('admin_required');
    const patch = await t.request('PATCH', `/api/auth/users/${target}`, {
      key: operator.raw_key,
      body: { password: 'taken over!!' },
    });
    expect(patch.status).toBe(403);
    expect(patch.json.error).toBe('admin_required');

    const anonymous = await t.request('GET', '/api/auth/users', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error).toBe('unauthorized');
    const anonymousCreate = await t.request('POST', '/api/auth/users', {
      key: null,
      body: { username: 'eve', password: 'x'.repeat(12), role: 'admin' },
    });
    expect(anonymousCreate.status).toBe(401);
    expect(await usersNamed(t.hub, 'eve')).toHaveLength(0);
    expect(await usersNamed(t.hub, 'mallory')).toHaveLength(0);
  });

  it('creates a user with a lowercased name and refuses a duplicate with 409', async () => {
    const t = hub();
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    const res = await createUser(
      { username: 'Alice.Ops', password: 'correct horse', role: 'operator' },
      admin.raw_key,
    );
    expect(res.status).toBe(201);
    const user = res.json.data as User;
    expect(user).toMatchObject({ username: 'alice.ops', role: 'operator' });
    expect(isId(user.id, 'user')).toBe(true);
    expect(res.text).not.toContain('password');

    const [row] = await usersNamed(t.hub, 'alice.ops');
    expect(row?.id).toBe(user.id);
    expect(await verifyPassword('correct horse', row?.password_hash ?? '')).toBe(true);

    for (const username of ['alice.ops', 'ALICE.OPS', 'Owner']) {
      const dup = await createUser({ username, password: 'another password', role: 'viewer' }, admin.raw_key);
      expect(dup.status, username).toBe(409);
      expect(dup.json.error).toBe('conflict');
    }
    expect(await t.hub.database.db.selectFrom('users').select('id').execute()).toHaveLength(2);
  });

  it('answers 409, not 500, when two requests create the same name at once', async () => {
    const t = hub();
    const body = { username: 'twin', password: 'same time pw', role: 'viewer' };

    const results = await Promise.all([createUser(body), createUser({ ...body, username: 'TWIN' })]);

    expect(results.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(results.find((r) => r.status === 409)?.json.error).toBe('conflict');
    expect(await usersNamed(t.hub, 'twin')).toHaveLength(1);
  });

  it('refuses short and over-72-byte passwords and the owner role', async () => {
    const t = hub();
    const multiByte = 'é'.repeat(40); // 40 characters, 80 bytes in UTF-8
    expect(multiByte.length).toBeLessThanOrEqual(256);
    expect(Buffer.byteLength(multiByte, 'utf8')).toBeGreaterThan(72);
    const cases = [
      { username: 'shorty', password: '123456789', role: 'viewer' },
      { username: 'wide', password: multiByte, role: 'viewer' },
      { username: 'longascii', password: 'a'.repeat(73), role: 'viewer' },
      { username: 'usurper', password: 'long enough pw', role: 'owner' },
    ];
    for (const body of cases) {
      const res = await createUser(body);
      expect(res.status, body.username).toBe(400);
      expect(res.json.error).toBe('validation');
    }
    // exactly 72 bytes is still accepted
    expect((await createUser({ username: 'edge', password: 'a'.repeat(72), role: 'viewer' })).status).toBe(
      201,
    );
    const names = (await t.hub.database.db.selectFrom('users').select('username').execute()).map(
      (r) => r.username,
    );
    expect(names.sort()).toEqual(['edge', 'owner']);
  });

  it('lists users page by page and never exposes a password hash', async () => {
    const t = hub();
    for (const username of ['carol', 'bob', 'dave']) {
      expect((await createUser({ username, password: 'password-123', role: 'viewer' })).status).toBe(201);
    }
    const page1 = await t.request('GET', '/api/auth/users?per_page=2');
    const page2 = await t.request('GET', '/api/auth/users?per_page=2&page=2');
    expect(page1.status).toBe(200);
    expect(page1.json.meta).toEqual({ total: 4, page: 1, per_page: 2 });
    expect(page2.json.meta).toEqual({ total: 4, page: 2, per_page: 2 });
    const names = [...(page1.json.data as User[]), ...(page2.json.data as User[])].map((u) => u.username);
    expect(names).toEqual(['bob', 'carol', 'dave', 'owner']);

    for (const res of [page1, page2]) {
      expect(res.text).not.toMatch(/password/i);
      expect(res.text).not.toContain('$2b$');
      for (const user of res.json.data as User[]) {
        expect(Object.keys(user).sort()).toEqual([
          'created_at',
          'disabled_at',
          'id',
          'role',
          'updated_at',
          'username',
        ]);
      }
    }
  });

  it('changes a role and resets a password: the new one verifies, the old one no longer does', async () => {
    const t = hub();
    const created = (await createUser({ username: 'frank', password: 'old password', role: 'viewer' })).json
      .data as User;
    t.clock.advance(5_000);

    const role = await t.request('PATCH', `/api/auth/users/${created.id}`, { body: { role: 'operator' } });
    expect(role.status).toBe(200);
    expect(role.json.data).toMatchObject({ id: created.id, role: 'operator' });
    expect((role.json.data as User).updated_at).not.toBe(created.updated_at);

    const reset = await t.request('PATCH', `/api/auth/users/${created.id}`, {
      body: { password: 'brand new password' },
    });
    expect(reset.status).toBe(200);
    expect(reset.text).not.toMatch(/password_hash|\$2b\$/);
    const [row] = await usersNamed(t.hub, 'frank');
    expect(row?.role).toBe('operator');
    expect(await verifyPassword('brand new password', row?.password_hash ?? '')).toBe(true);
    expect(await verifyPassword('old password', row?.password_hash ?? '')).toBe(false);

    const tooLong = await t.request('PATCH', `/api/auth/users/${created.id}`, {
      body: { password: 'é'.repeat(40) },
    });
    expect(tooLong.status).toBe(400);
    const missing = await t.request('PATCH', '/api/auth/users/user_doesnotexist', {
      body: { role: 'viewer' },
    });
    expect(missing.status).toBe(404);
    const empty = await t.request('PATCH', `/api/auth/users/${created.id}`, { body: {} });
    expect(empty.status).toBe(400);
  });

  it('lets only the owner change the owner account, and nobody its role', async () => {
    const t = hub();
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    const owner = await ownerRow();

    for (const body of [{ password: 'admin took over' }, { role: 'viewer' }]) {
      const res = await t.request('PATCH', `/api/auth/users/${owner.id}`, { key: admin.raw_key, body });
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.json.error).toBe('forbidden');
    }
    for (const role of ['admin', 'viewer']) {
      const res = await t.request('PATCH', `/api/auth/users/${owner.id}`, { body: { role } });
      expect(res.status, role).toBe(403);
    }
    const after = await ownerRow();
    expect(after).toEqual(owner);
    expect(await verifyPassword(t.ownerPassword, after.password_hash)).toBe(true);

    const byOwner = await t.request('PATCH', `/api/auth/users/${owner.id}`, {
      body: { password: 'owner chose this' },
    });
    expect(byOwner.status).toBe(200);
    expect(byOwner.json.data).toMatchObject({ role: 'owner' });
    expect(await verifyPassword('owner chose this', (await ownerRow()).password_hash)).toBe(true);
  });

  it('audits every mutation with its actor, and no secret in the detail', async () => {
    const t = hub();
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    const created = (
      await createUser({ username: 'grace', password: 'first password', role: 'viewer' }, admin.raw_key)
    ).json.data as User;
    await t.request('PATCH', `/api/auth/users/${created.id}`, {
      key: admin.raw_key,
      body: { role: 'admin' },
    });
    await t.request('PATCH', `/api/auth/users/${created.id}`, {
      key: admin.raw_key,
      body: { password: 'second password' },
    });
    const refused = await t.request('PATCH', `/api/auth/users/${(await ownerRow()).id}`, {
      key: admin.raw_key,
      body: { password: 'not allowed!' },
    });
    expect(refused.status).toBe(403);

    const events = await auditActions(t, created.id);
    expect(events.map((e) => e.action).sort()).toEqual([
      'user.created',
      'user.password_reset',
      'user.updated',
    ]);
    for (const event of events) {
      expect(event).toMatchObject({ actor_type: 'api_key', actor_id: admin.id, target_type: 'user' });
      expect(JSON.stringify(event)).not.toMatch(/first password|second password|\$2b\$/);
    }
    // The bootstrap's creation and the first sign-in's new password; the refused reset left nothing.
    expect((await auditActions(t, (await ownerRow()).id)).map((e) => e.action).sort()).toEqual([
      'user.created',
      'user.password_changed',
    ]);
  });
});

describe.each(databaseTargets())('/api/auth/users with narrowed admin keys ($name)', ({ options }) => {
  const hub = useTestHub(options, 'per-test');

  it("refuses POST and PATCH to an admin key without '*' or with allowed_assets; a '*' admin key works", async () => {
    const t = hub();
    const asset = await t.createAsset();
    const victim = (
      await t.request('POST', '/api/auth/users', {
        body: { username: 'victor', password: 'victor password', role: 'viewer' },
      })
    ).json.data as User;
    const narrowScopes = await t.createKey({
      role: 'admin',
      scopes: ['assets:*', 'groups:*', 'users:read', 'audit:read'],
    });
    const restricted = await t.createKey({ role: 'admin', scopes: ['*'], allowed_assets: [asset.id] });
    const full = await t.createKey({ role: 'admin', scopes: ['*'] });

    for (const [label, key] of [
      ['scopes without *', narrowScopes.raw_key],
      ['restricted to one asset', restricted.raw_key],
    ] as const) {
      const create = await t.request('POST', '/api/auth/users', {
        key,
        body: { username: `minted-${label.length}`, password: 'full admin now', role: 'admin' },
      });
      expect(create.status, label).toBe(403);
      expect(create.json.error, label).toBe('forbidden');

      for (const body of [{ role: 'admin' }, { password: 'taken over pw' }]) {
        const patch = await t.request('PATCH', `/api/auth/users/${victim.id}`, { key, body });
        expect(patch.status, `${label} ${JSON.stringify(body)}`).toBe(403);
        expect(patch.json.error).toBe('forbidden');
      }
    }
    const names = (await t.hub.database.db.selectFrom('users').select('username').execute()).map(
      (r) => r.username,
    );
    expect(names.sort()).toEqual(['owner', 'victor']);
    const [unchanged] = await usersNamed(t.hub, 'victor');
    expect(unchanged?.role).toBe('viewer');
    expect(await verifyPassword('victor password', unchanged?.password_hash ?? '')).toBe(true);

    const create = await t.request('POST', '/api/auth/users', {
      key: full.raw_key,
      body: { username: 'minted', password: 'full admin now', role: 'admin' },
    });
    expect(create.status, create.text).toBe(201);
    const patch = await t.request('PATCH', `/api/auth/users/${victim.id}`, {
      key: full.raw_key,
      body: { role: 'operator', password: 'reset by admin' },
    });
    expect(patch.status, patch.text).toBe(200);
    const [changed] = await usersNamed(t.hub, 'victor');
    expect(changed?.role).toBe('operator');
    expect(await verifyPassword('reset by admin', changed?.password_hash ?? '')).toBe(true);
  });
});
