import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { agentChannelPath, type EnrollmentTokenCreated, type User } from '@svc/protocol';
import { FakeAgent, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { parseEnv } from '../config/env.js';
import { createHub, type Hub } from '../hub.js';
import { systemOwnerContext } from '../access/principal.js';
import { silentLogger } from '../platform/logger.js';
import { metricSample } from '../testing/metric-sample.js';
import { enableTwoFactor, sessionCookieOf } from '../testing/two-factor-user.js';
import { enrollLocalAgent } from '../local-agent.js';
import { runHubCli } from './program.js';

const cleanup: (() => Promise<void> | void)[] = [];
// Closing hubs on PostgreSQL and dropping two databases: seconds alone, past 30 s on a loaded CI machine.
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
}, 90_000);

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-backup-test-'));
  cleanup.push(() => {
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Runs `svc-hub <argv>` with the hub's environment for `dataDir`; what it printed, and its exit code. */
async function cli(argv: string[], dataDir: string, env: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runHubCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    config: () => parseEnv({ SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled', ...env }, dataDir),
    serve: () => Promise.reject(new Error('not in this test')),
  });
  return { code, stdout, stderr };
}

async function openRestored(dataDir: string): Promise<Hub> {
  const config = parseEnv({ SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled', SVC_BCRYPT_COST: '4' }, dataDir);
  const hub = await createHub({ config, logger: silentLogger });
  cleanup.push(() => hub.close());
  return hub;
}

async function get(hub: Hub, url: string, key: string) {
  const res = await hub.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
  return { status: res.statusCode, json: JSON.parse(res.body) as { data?: unknown; error?: string } };
}

describe('svc-hub backup and restore (SQLite)', () => {
  it('copies a hub while an agent writes; the restored hub has its assets, keys, settings and secrets', async () => {
    // The webhook's name resolves to loopback, and it stays disabled: nothing is ever sent.
    const t: TestHub = await startTestHub({
      listen: true,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) },
    });
    cleanup.push(() => t.close());
    const asset = await t.createAsset({ name: 'kept-asset', tags: ['prod'] });
    const key = await t.createKey({ role: 'operator', scopes: ['assets:read'], name: 'kept key' });
    const settings = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.interactive_enabled': false },
    });
    expect(settings.status).toBe(200);
    const webhook = await t.request('POST', '/api/v2/webhooks', {
      body: { name: 'kept hook', url: 'https://hooks.test/in', secret: 'w'.repeat(32), enabled: false },
    });
    expect(webhook.status, webhook.text).toBe(201);
    const webhookId = (webhook.json.data as { id: string }).id;

    // An agent sends metrics the whole time the backup runs.
    const [identity] = await provisionAgents(t.hub, 1, 'bk');
    if (!identity) throw new Error('agent not provisioned');
    const agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(t.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
    });
    cleanup.push(() => {
      agent.close();
    });
    await agent.start();
    const countSamples = async (h: Hub) =>
      Number(
        (
          await h.database.db
            .selectFrom('metric_samples')
            .select((eb) => eb.fn.countAll<string | number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    let sent = 0;
    const send = () => {
      sent += 1;
      agent.metrics([metricSample(t.clock.now().getTime() - 50_000 + sent * 10)]);
    };
    send();
    const deadline = Date.now() + 5_000;
    while ((await countSamples(t.hub)) === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const before = await countSamples(t.hub);
    expect(before).toBeGreaterThan(0);
    const writer = setInterval(send, 5);
    cleanup.push(() => {
      clearInterval(writer);
    });

    const out = path.join(tempDir(), 'hub.svcbackup');
    const backup = await cli(['backup', out], t.dataDir);
    clearInterval(writer);
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);
    expect(sent).toBeGreaterThan(0);
    expect(backup.stdout).toContain('The hub key is NOT in this backup');
    expect(backup.stdout).toContain(path.join(t.dataDir, 'encryption.key'));
    expect(fs.statSync(out).mode & 0o777).toBe(0o600);

    // Without the key, restore refuses rather than make a hub that cannot read its secrets.
    const target = path.join(tempDir(), 'restored');
    const refused = await cli(['restore', out], target);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--key-file');
    expect(fs.existsSync(target)).toBe(false);

    const restored = await cli(
      ['restore', out, '--key-file', path.join(t.dataDir, 'encryption.key')],
      target,
    );
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);

    // A second restore into the now non-empty directory is refused.
    const again = await cli(['restore', out, '--key-file', path.join(t.dataDir, 'encryption.key')], target);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('is not empty');

    const hub = await openRestored(target);
    const seen = await get(hub, `/api/v2/assets/${asset.id}`, key.raw_key);
    expect(seen.status).toBe(200);
    expect(seen.json.data).toMatchObject({ id: asset.id, name: 'kept-asset', tags: ['prod'] });
    expect(hub.settings.get('policy.interactive_enabled')).toBe(false);
    const row = await hub.database.db
      .selectFrom('webhooks')
      .select('secret_sealed')
      .where('id', '=', webhookId)
      .executeTakeFirstOrThrow();
    expect(hub.box.open(row.secret_sealed, `webhook:${webhookId}`)).toBe('w'.repeat(32));
    expect(await countSamples(hub)).toBeGreaterThanOrEqual(before);
  });

  it('with --include-key, the archive restores alone; a file that is not a backup is refused', async () => {
    const t = await startTestHub();
    cleanup.push(() => t.close());
    const key = await t.createKey({ role: 'viewer', scopes: ['hub:read'] });
    const dir = tempDir();
    const out = path.join(dir, 'with-key.svcbackup');

    const backup = await cli(['backup', out, '--include-key'], t.dataDir);
    expect(backup.code).toBe(0);
    expect(backup.stdout).toContain('The hub key is IN this backup');
    expect((await cli(['backup', out], t.dataDir)).stderr).toContain('exists');

    const target = path.join(dir, 'restored');
    expect((await cli(['restore', out], target)).code).toBe(0);
    const hub = await openRestored(target);
    expect((await get(hub, '/api/v2/hub/status', key.raw_key)).status).toBe(200);

    const junk = path.join(dir, 'junk.tar');
    fs.writeFileSync(junk, 'not a tar');
    const bad = await cli(['restore', junk], path.join(dir, 'other'));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a readable svc hub backup');
  });
});

/**
 * Everything a thief of the archive could read: its raw bytes, each file in it, and every row of the database
 * in it (a value in the database may be split across pages in the raw bytes).
 */
function archiveText(archive: string): string {
  const dir = tempDir();
  execFileSync('tar', ['-C', dir, '-xf', archive]);
  const parts = [fs.readFileSync(archive).toString('latin1')];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else parts.push(fs.readFileSync(full).toString('latin1'));
    }
  };
  walk(dir);
  const db = new SQLite(path.join(dir, 'data', 'hub.sqlite'), { readonly: true });
  try {
    const tables = db
      .prepare<[], { name: string }>("select name from sqlite_master where type = 'table'")
      .all();
    for (const { name } of tables) parts.push(JSON.stringify(db.prepare(`select * from "${name}"`).all()));
  } finally {
    db.close();
  }
  return parts.join('\n');
}

/** The base64 body of a PEM private key, without its armour and line breaks' effect (one line of it). */
function pemBodyLine(pem: string): string {
  const line = pem.split('\n').find((l) => l.length > 0 && !l.startsWith('-----'));
  if (!line) throw new Error('not a PEM');
  return line;
}

describe('what a stolen backup holds (made without --include-key)', () => {
  it('no credential the hub issued, in clear; restore with the key puts the sealed files back', async () => {
    // The built-in CA (TLS auto), the owner's first run left as it is (its password in the data directory).
    // The webhook's name resolves to loopback, and it stays disabled: nothing is ever sent.
    const t = await startTestHub({
      keepFirstRun: true,
      injectAsHttps: true,
      env: { SVC_TLS_MODE: 'auto', SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) },
    });
    cleanup.push(() => t.close());
    const secrets: [string, string][] = [
      ['owner token', t.ownerKey],
      ["owner's first-run password", t.ownerPassword],
      ['API key', (await t.createKey({ role: 'viewer', scopes: ['hub:read'] })).raw_key],
      ['hub key', fs.readFileSync(path.join(t.dataDir, 'encryption.key'), 'utf8').trim()],
    ];
    const token = await t.request('POST', '/api/v2/enrollment-tokens', { body: { name: 'rack' } });
    expect(token.status, token.text).toBe(201);
    secrets.push(['enrollment token', (token.json.data as EnrollmentTokenCreated).token]);
    const [agent] = await provisionAgents(t.hub, 1, 'bk');
    secrets.push(['agent credential', agent?.credential ?? 'missing']);
    // The hub's own host, as `npm start` enrolls it.
    const local = await enrollLocalAgent(t.hub, t.config, 'https://127.0.0.1:8443');
    const localSettings = fs.readFileSync(local.file, 'utf8');
    const localCredential = (JSON.parse(localSettings) as { credential: string }).credential;
    expect(localCredential).toMatch(/^sva_/);
    secrets.push(["the local agent's credential", localCredential]);
    const ownerFile = path.join(t.dataDir, 'owner-credentials.txt');
    const ownerText = fs.readFileSync(ownerFile, 'utf8');

    // A user signed in (a session) with 2FA on (a TOTP secret, recovery codes).
    const user = await t.request('POST', '/api/auth/users', {
      body: { username: 'tess', password: 'tess password 1', role: 'operator' },
    });
    expect(user.status, user.text).toBe(201);
    expect((user.json.data as User).username).toBe('tess');
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'tess', password: 'tess password 1' },
    });
    const cookie = sessionCookieOf(login) ?? '';
    expect(cookie).toMatch(/^svc_session=[a-z2-7]{52}$/);
    secrets.push(['session token', cookie.slice('svc_session='.length)]);
    // inject() as from a TLS-terminating proxy: the console's own origin is https, with inject()'s Host.
    const twoFactor = await enableTwoFactor(t, cookie, 'https://localhost:80');
    secrets.push(['TOTP secret', twoFactor.secret]);
    for (const code of twoFactor.recoveryCodes) secrets.push(['recovery code', code]);

    // Secrets admins hand the hub: a webhook's, a desktop's password.
    const hookSecret = `hook-${'s'.repeat(8)}-${Math.random().toString(36).slice(2)}-secret`;
    const hook = await t.request('POST', '/api/v2/webhooks', {
      body: { name: 'hook', url: 'https://hooks.test/in', secret: hookSecret, enabled: false },
    });
    expect(hook.status, hook.text).toBe(201);
    secrets.push(['webhook secret', hookSecret]);
    const asset = await t.createAsset({ name: 'desk' });
    const vnc = `vnc-${Math.random().toString(36).slice(2)}`;
    const desktop = await t.request('PUT', `/api/v2/desktop/credentials/${asset.id}`, {
      body: { password: vnc },
    });
    expect(desktop.status, desktop.text).toBe(200);
    secrets.push(['desktop password', vnc]);

    // The private keys: the built-in CA's and the server's.
    const caKey = t.hub.box.open(
      fs.readFileSync(path.join(t.config.tlsCaKeyDir, 'ca.key.sealed'), 'utf8').trim(),
      'tls:ca-key',
    );
    const serverKey = t.hub.box.open(
      fs.readFileSync(path.join(t.dataDir, 'tls-private', 'server.key.sealed'), 'utf8').trim(),
      'tls:server-key',
    );
    secrets.push(['CA key', pemBodyLine(caKey)], ['server key', pemBodyLine(serverKey)]);

    const out = path.join(tempDir(), 'hub.svcbackup');
    const backup = await cli(['backup', out], t.dataDir, {
      SVC_TLS_CA_KEY_DIR: t.config.tlsCaKeyDir,
    });
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);

    const text = archiveText(out);
    expect(text).not.toContain('PRIVATE KEY');
    for (const [what, secret] of secrets) expect(secret.length, what).toBeGreaterThan(8);
    expect(
      secrets.filter(([, secret]) => text.includes(secret)).map(([what]) => what),
      'in the archive in clear',
    ).toEqual([]);

    // A wrong key is refused with the reason, and leaves nothing behind.
    const wrongKey = path.join(tempDir(), 'wrong.key');
    fs.writeFileSync(wrongKey, `${'ab'.repeat(32)}\n`);
    const target = path.join(tempDir(), 'restored');
    const env = { SVC_TLS_CA_KEY_DIR: `${target}-ca-key` };
    const wrong = await cli(['restore', out, '--key-file', wrongKey], target, env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('does not open this backup');
    expect(fs.existsSync(target)).toBe(false);

    // With the right key, the local agent keeps its identity and the owner's first run its password.
    const restored = await cli(
      ['restore', out, '--key-file', path.join(t.dataDir, 'encryption.key')],
      target,
      env,
    );
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(fs.readFileSync(path.join(target, 'local-agent', 'settings.json'), 'utf8')).toBe(localSettings);
    expect(fs.readFileSync(path.join(target, 'owner-credentials.txt'), 'utf8')).toBe(ownerText);
    expect(fs.statSync(path.join(target, 'local-agent', 'settings.json')).mode & 0o777).toBe(0o600);
    fs.rmSync(`${target}-ca-key`, { recursive: true, force: true });
  });
});

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

/** A new, empty database on the test server, dropped after the test. */
async function emptyPostgresDatabase(base: string): Promise<string> {
  const name = `svc_backup_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  cleanup.push(async () => {
    const dropper = new pg.Client({ connectionString: base });
    await dropper.connect();
    try {
      await dropper.query(`drop database if exists ${name} with (force)`);
    } finally {
      await dropper.end();
    }
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

describe.skipIf(!postgresUrl)('svc-hub backup and restore (PostgreSQL)', () => {
  it('dumps with pg_dump and restores into an empty database with pg_restore; a database in use is refused', async () => {
    const base = postgresUrl ?? '';
    const source = await emptyPostgresDatabase(base);
    const target = await emptyPostgresDatabase(base);
    const dir = tempDir();
    const sourceDir = path.join(dir, 'source');
    const env = (url: string) => ({ SVC_DATABASE_URL: url, SVC_BCRYPT_COST: '4' });

    const original = await createHub({
      config: parseEnv({ SVC_DATA_DIR: sourceDir, SVC_TLS_MODE: 'disabled', ...env(source) }, sourceDir),
      logger: silentLogger,
    });
    const ctx = systemOwnerContext();
    const asset = await original.services.assets.create(ctx, { name: 'pg-kept', tags: ['pg'] });
    const key = await original.services.apiKeys.create(ctx, {
      name: 'pg key',
      role: 'viewer',
      scopes: ['assets:read'],
    });
    await original.close();

    const out = path.join(dir, 'pg.svcbackup');
    const backup = await cli(['backup', out, '--include-key'], sourceDir, env(source));
    expect(backup.stderr).toBe('');
    expect(backup.code).toBe(0);

    const restoredDir = path.join(dir, 'restored');
    const restore = await cli(['restore', out], restoredDir, env(target));
    expect(restore.stderr).toBe('');
    expect(restore.code).toBe(0);
    const again = await cli(['restore', out], path.join(dir, 'again'), env(target));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('not empty');

    const hub = await createHub({
      config: parseEnv({ SVC_DATA_DIR: restoredDir, SVC_TLS_MODE: 'disabled', ...env(target) }, restoredDir),
      logger: silentLogger,
    });
    cleanup.push(() => hub.close());
    const read = await get(hub, `/api/v2/assets/${asset.id}`, key.raw_key);
    expect(read.status).toBe(200);
    expect(read.json.data).toMatchObject({ name: 'pg-kept', tags: ['pg'] });
  }, 60_000);
});
