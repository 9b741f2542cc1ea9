/**
 * Administration in chromium against a real hub: an API key created with its raw value shown once, edited
 * and revoked; a user created and its role changed; an enrollment token whose copied command enrolls a real
 * agent; the TLS page with the fingerprint the hub serves; a setting changed (source "api"), a refused value
 * shown under its field, and a restart waited for; the audit log filtered to the key's creation; the hub's
 * status; and a viewer who sees the admin-only state and whose forced request the hub refuses.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useConsole, type ConsoleHarness } from './harness.js';

const h = useConsole({ localAgent: true });
const agentLauncher = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../agent/bin/svc-agent.js',
);

/** Set by the key test, read by the audit test. */
let createdKeyId: string | null = null;

async function allowClipboard(t: ConsoleHarness): Promise<void> {
  await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
}

const clipboardText = (t: ConsoleHarness) => t.page.evaluate<string>('navigator.clipboard.readText()');

async function openAdmin(t: ConsoleHarness, section: string, heading: string): Promise<void> {
  await t.page
    .getByRole('navigation', { name: 'Administration' })
    .getByRole('link', { name: section })
    .click();
  await t.page.getByRole('heading', { name: heading, level: 1 }).waitFor();
}

/** Runs the agent CLI as a user would paste the command (`svc-agent` → this checkout's launcher). */
function runAgentCommand(command: string, configPath: string): Promise<{ code: number; output: string }> {
  const [program, ...args] = command.split(' ');
  if (program !== 'svc-agent') throw new Error(`not an svc-agent command: ${command}`);
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [agentLauncher, ...args],
      { env: { ...process.env, SVC_AGENT_CONFIG: configPath }, timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr });
      },
    );
  });
}

describe('console administration', () => {
  it('creates an API key whose raw value is shown once, edits it and revokes it', async () => {
    const t = h();
    await t.signIn('owner');
    await allowClipboard(t);
    await t.page.getByRole('link', { name: 'Admin', exact: true }).click();
    await t.page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    await t.page.getByRole('button', { name: 'Create key' }).click();
    const form = t.page.getByRole('dialog', { name: 'Create an API key' });
    await form.getByLabel('Name').fill('deploy-bot');
    await form.getByLabel('Role').selectOption('operator');
    await form.getByLabel('assets:read', { exact: true }).check();
    await form.getByLabel('assets:exec', { exact: true }).check();
    await form.getByRole('button', { name: '30 days' }).click();
    await t.screenshot('admin-key-create');
    await form.getByRole('button', { name: 'Create key' }).click();

    const shown = t.page.getByRole('dialog', { name: 'Key deploy-bot created' });
    await shown.waitFor();
    const rawKey = await shown.getByLabel('API key').inputValue();
    expect(rawKey).toMatch(/^svc_[a-z2-7]{4}_[a-z2-7]{52}$/);
    expect(await shown.getByRole('note').textContent()).toContain('shown only this once');
    await shown.getByRole('button', { name: 'Copy API key' }).click();
    await shown.getByText('Copied', { exact: true }).waitFor();
    expect(await clipboardText(t)).toBe(rawKey);
    await t.screenshot('admin-key-created');

    // The key works, with what the form gave it.
    const whoami = await t.api('GET', '/api/v2/whoami', undefined, rawKey);
    expect(whoami.status).toBe(200);
    expect(whoami.json.data).toMatchObject({ role: 'operator', scopes: ['assets:exec', 'assets:read'] });
    const keyId = (whoami.json.data as { key_id: string }).key_id;
    createdKeyId = keyId;
    const expiresAt = Date.parse((whoami.json.data as { expires_at: string }).expires_at);
    expect(Math.abs(expiresAt - (Date.now() + 30 * 86_400_000))).toBeLessThan(5 * 60_000);

    // Closed, then away and back: only the prefix is left.
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await openAdmin(t, 'Users', 'Users');
    await openAdmin(t, 'API keys', 'API keys');
    const row = t.page.getByRole('row', { name: /deploy-bot/ });
    await row.waitFor();
    expect(await row.textContent()).toContain(`svc_${rawKey.slice(4, 8)}_…`);
    expect(await t.page.content()).not.toContain(rawKey.slice(9));
    await t.screenshot('admin-keys');

    // Edit: the name and the scopes change, the role cannot.
    await t.page.getByRole('button', { name: 'Edit deploy-bot' }).click();
    const edit = t.page.getByRole('dialog', { name: 'Edit the key deploy-bot' });
    expect(await edit.getByLabel('Role').count()).toBe(0);
    await edit.getByLabel('Name').fill('deploy-bot-2');
    await edit.getByLabel('assets:exec', { exact: true }).uncheck();
    await edit.getByRole('button', { name: 'Save' }).click();
    await t.page.getByRole('row', { name: /deploy-bot-2/ }).waitFor();
    const after = await t.api('GET', `/api/v2/keys/${keyId}`);
    expect(after.json.data).toMatchObject({
      name: 'deploy-bot-2',
      role: 'operator',
      scopes: ['assets:read'],
    });

    // Revoke, confirmed: the hub refuses the key from then on.
    await t.page.getByRole('button', { name: 'Revoke deploy-bot-2' }).click();
    const confirm = t.page.getByRole('dialog', { name: 'Revoke the key deploy-bot-2?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await t.page.getByRole('row', { name: /deploy-bot-2/ }).waitFor({ state: 'detached' });
    expect((await t.api('GET', '/api/v2/whoami', undefined, rawKey)).status).toBe(401);
    expect(t.cspViolations).toEqual([]);
  });

  it("shows the hub's refusal of a key form under the field it names", async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/admin/keys`);
    await t.page.getByRole('button', { name: 'Create key' }).click();
    const form = t.page.getByRole('dialog', { name: 'Create an API key' });
    await form.getByLabel('Name').fill('no-scopes');
    await form.getByRole('button', { name: 'Create key' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('400 validation');
    const problem = form.locator('#scope-problem');
    await problem.waitFor();
    expect(await problem.textContent()).not.toBe('');
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('filters the audit log to the key creation', async () => {
    const t = h();
    expect(createdKeyId).not.toBeNull();
    await t.page.goto(`${t.baseUrl}/admin/audit`);
    await t.page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    await t.page.getByLabel('Action').fill('api_key.created');
    await t.page.getByRole('button', { name: 'Apply filters' }).click();
    await t.page.waitForURL(/action=api_key.created/);
    // The unfiltered rows stay until the filtered page arrives (its key's update and deletion among them).
    await t.page.locator('table[aria-busy="false"]').waitFor();
    await t.page
      .locator('tbody tr')
      .filter({ hasNotText: 'api_key.created' })
      .first()
      .waitFor({ state: 'detached' });
    const row = t.page.locator('tbody tr').filter({ hasText: createdKeyId ?? 'none' });
    await row.getByText('session owner').waitFor();
    expect(await row.count()).toBe(1);
    await t.screenshot('admin-audit');

    // Nothing matches an unknown action, and the page says so.
    await t.page.getByLabel('Action').fill('no.such_action');
    await t.page.getByRole('button', { name: 'Apply filters' }).click();
    await t.page.getByText('No audit event matches').waitFor();
  });

  it('adds a user and changes its role', async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/admin/users`);
    await t.page.getByRole('button', { name: 'Add user' }).click();
    const form = t.page.getByRole('dialog', { name: 'Add a user' });
    await form.getByLabel('Username').fill('grace');
    await form.getByLabel('Password').fill('a long enough password');
    await form.getByLabel('Role').selectOption('viewer');
    await form.getByRole('button', { name: 'Add user' }).click();
    await form.waitFor({ state: 'hidden' });
    expect(await t.page.getByTestId('role-grace').textContent()).toBe('viewer');

    await t.page.getByRole('button', { name: 'Change role of grace' }).click();
    const change = t.page.getByRole('dialog', { name: 'Change the role of grace' });
    await change.getByLabel('Role').selectOption('operator');
    await change.getByRole('button', { name: 'Change role' }).click();
    await change.waitFor({ state: 'hidden' });
    await t.page.getByTestId('role-grace').getByText('operator').waitFor();
    const users = await t.api('GET', '/api/auth/users?per_page=100');
    expect(users.json.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ username: 'grace', role: 'operator' })]),
    );
    await t.screenshot('admin-users');

    // A username the hub already has: its refusal, as it words it.
    await t.page.getByRole('button', { name: 'Add user' }).click();
    await form.getByLabel('Username').fill('grace');
    await form.getByLabel('Password').fill('another long password');
    await form.getByRole('button', { name: 'Add user' }).click();
    await form.getByText('a user named grace exists already').waitFor();
    await form.getByRole('button', { name: 'Cancel' }).click();
  });

  it('creates an enrollment token whose copied command enrolls an agent, pinning the CA', async () => {
    const t = h();
    await allowClipboard(t);
    await t.page.goto(`${t.baseUrl}/admin/enrollment`);
    await t.page.getByRole('button', { name: 'Create token' }).click();
    const form = t.page.getByRole('dialog', { name: 'Create an enrollment token' });
    await form.getByLabel('Name').fill('rack-1');
    await form.getByLabel('Enrollments allowed').fill('3');
    await form.getByRole('button', { name: 'Create token' }).click();

    const shown = t.page.getByRole('dialog', { name: 'Token rack-1 created' });
    const command = await shown.getByLabel('Enroll command').inputValue();
    const info = await t.api('GET', '/api/v1/tls/info');
    const caFingerprint = (info.json.data as { ca_fingerprint_sha256: string }).ca_fingerprint_sha256;
    expect(caFingerprint).toBeTruthy();
    const token = await shown.getByLabel('Token', { exact: true }).inputValue();
    expect(command).toBe(
      `svc-agent enroll --hub ${t.baseUrl} --token ${token} --ca-fingerprint ${caFingerprint}`,
    );
    await shown.getByRole('button', { name: 'Copy Enroll command' }).click();
    await shown.getByText('Copied', { exact: true }).waitFor();
    expect(await clipboardText(t)).toBe(command);
    await t.screenshot('admin-enrollment-created');
    await shown.getByRole('button', { name: 'Done' }).click();

    // The command as pasted on a machine: the agent enrolls and trusts this hub's CA.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-web-enroll-'));
    try {
      const run = await runAgentCommand(command, path.join(dir, 'settings.json'));
      expect(run.output).toContain(`trusting the hub's CA ${caFingerprint}`);
      expect(run.code).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await t.page.reload();
    const row = t.page.getByRole('row', { name: /rack-1/ });
    await row.getByText('1 of 3').waitFor();
    await t.screenshot('admin-enrollment');

    await row.getByRole('button', { name: 'Revoke rack-1' }).click();
    await t.page
      .getByRole('dialog', { name: 'Revoke the token rack-1?' })
      .getByRole('button', { name: 'Revoke token' })
      .click();
    await row.getByText('revoked').waitFor();
  });

  it('shows the TLS source and the fingerprint the hub serves, and its refusal of a bad upload', async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/admin/tls`);
    await t.page.getByRole('heading', { name: 'TLS', level: 1 }).waitFor();
    const info = (await t.api('GET', '/api/v1/tls/info')).json.data as {
      fingerprint_sha256: string;
      ca_fingerprint_sha256: string;
    };
    expect(await t.page.getByTestId('server-certificate-fingerprint').textContent()).toBe(
      info.fingerprint_sha256,
    );
    expect(await t.page.getByTestId('certificate-authority-fingerprint').textContent()).toBe(
      info.ca_fingerprint_sha256,
    );
    expect(await t.page.getByTestId('tls-source').textContent()).toContain('builtin');
    await t.screenshot('admin-tls');

    // The CA download is offered for the built-in source, and is the CA.
    const [download] = await Promise.all([
      t.page.waitForEvent('download'),
      t.page.getByRole('link', { name: 'Download the CA certificate' }).click(),
    ]);
    const file = await download.path();
    expect(fs.readFileSync(file, 'utf8')).toContain('-----BEGIN CERTIFICATE-----');
    expect(await t.page.getByRole('button', { name: 'Clear the override' }).count()).toBe(0);

    // Not a certificate: confirmed, then refused by the hub under the field.
    await t.page.getByLabel('Certificate chain (PEM)').fill('not a certificate');
    await t.page.getByLabel('Private key (PEM)').fill('not a key');
    await t.page.getByRole('button', { name: 'Upload certificate' }).click();
    await t.page
      .getByRole('dialog', { name: 'Serve the uploaded certificate?' })
      .getByRole('button', { name: 'Upload and serve it' })
      .click();
    await t.page.getByRole('alert').waitFor();
    expect(await t.page.getByLabel('Certificate chain (PEM)').getAttribute('aria-invalid')).toBe('true');
    expect(await t.page.getByTestId('tls-source').textContent()).toContain('builtin');
  });

  it('changes a setting (source api), shows a refused value under it, and restarts the hub', async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/admin/settings`);
    await t.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const maxUses = t.page.getByTestId('setting-enrollment.token_default_max_uses');
    expect(await maxUses.textContent()).toContain('default');

    await t.page.getByRole('button', { name: 'Edit enrollment settings' }).click();
    const form = t.page.getByRole('form', { name: 'Enrollment settings' });
    await form.getByLabel('enrollment.token_default_max_uses').fill('0');
    await form.getByRole('button', { name: 'Save enrollment' }).click();
    await form
      .getByText(/must be a whole number from 1 to 10000/)
      .first()
      .waitFor();
    expect(await form.getByLabel('enrollment.token_default_max_uses').getAttribute('aria-invalid')).toBe(
      'true',
    );

    await form.getByLabel('enrollment.token_default_max_uses').fill('5');
    await form.getByRole('button', { name: 'Save enrollment' }).click();
    await t.page.getByText('Saved enrollment.token_default_max_uses.').waitFor();
    expect(await maxUses.textContent()).toMatch(/5.*api/);
    const listed = (await t.api('GET', '/api/settings/enrollment')).json.data as {
      settings: { key: string; value: unknown; source: string }[];
    };
    expect(listed.settings.find((s) => s.key === 'enrollment.token_default_max_uses')).toMatchObject({
      value: 5,
      source: 'api',
    });

    // A setting read at start waits for a restart; the restart applies it.
    await t.page.getByRole('button', { name: 'Edit retention settings' }).click();
    const retention = t.page.getByRole('form', { name: 'Retention settings' });
    await retention.getByLabel('retention.metrics_days').fill('14');
    await retention.getByRole('button', { name: 'Save retention' }).click();
    const metricsDays = t.page.getByTestId('setting-retention.metrics_days');
    await metricsDays.getByText('waits for a restart').waitFor();
    await t.page.getByText('One setting waits for a restart').waitFor();
    await t.page.evaluate('window.scrollTo(0, 0)');
    await t.screenshot('admin-settings');

    const before = (await t.api('GET', '/api/v2/hub/status')).json.data as { started_at: string };
    await t.page.getByRole('button', { name: 'Restart the hub' }).click();
    await t.page
      .getByRole('dialog', { name: 'Restart the hub?' })
      .getByRole('button', { name: 'Restart now' })
      .click();
    await t.page.getByText('The hub restarted and answers again.').waitFor({ timeout: 60_000 });
    const afterRestart = (await t.api('GET', '/api/v2/hub/status')).json.data as { started_at: string };
    expect(afterRestart.started_at).not.toBe(before.started_at);
    await t.page.getByText('No setting waits for a restart.').waitFor();
    expect(await metricsDays.getByText('waits for a restart').count()).toBe(0);
    expect(await metricsDays.textContent()).toMatch(/14.*api/);
  }, 90_000);

  it("shows the hub's status", async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/admin/status`);
    await t.page.getByRole('heading', { name: 'Hub status', level: 1 }).waitFor();
    const status = (await t.api('GET', '/api/v2/hub/status')).json.data as { version: string };
    expect(await t.page.getByTestId('hub-version').textContent()).toBe(status.version);
    expect(await t.page.getByTestId('hub-health').textContent()).toBe('ok');
    // The hub's own agent (reconnecting after the restart above), listed with a link to its asset.
    const link = t.page.getByRole('table', { name: 'Connected agents' }).getByRole('link').first();
    await link.waitFor({ timeout: 30_000 });
    const agents = (await t.api('GET', '/api/v2/hub/agents')).json.data as { name: string }[];
    expect(agents.map((a) => a.name)).toContain(await link.textContent());
    await t.screenshot('admin-status');
  }, 45_000);

  it("fits every administration page into a phone's width", async () => {
    const t = h();
    await t.page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const section of ['keys', 'users', 'enrollment', 'tls', 'settings', 'audit', 'status']) {
        await t.page.goto(`${t.baseUrl}/admin/${section}`);
        await t.page.getByRole('heading', { level: 1 }).waitFor();
        await t.page.locator('.loading').first().waitFor({ state: 'detached' });
        expect({
          section,
          width: await t.page.evaluate<number>('document.documentElement.scrollWidth'),
        }).toEqual({
          section,
          width: 390,
        });
      }
    } finally {
      await t.page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 45_000);

  it('shows a viewer the admin-only state, and the hub refuses a forced request', async () => {
    const t = h();
    await t.signIn('viewer');
    expect(await t.page.getByRole('link', { name: 'Admin', exact: true }).count()).toBe(0);
    await t.page.goto(`${t.baseUrl}/admin/keys`);
    await t.page.getByText('Admin only').waitFor();
    expect(await t.page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await t.screenshot('admin-only');

    const forced = await t.page.evaluate(async () => {
      const response = await fetch('/api/v2/keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'forced', role: 'admin', scopes: ['*'] }),
      });
      return { status: response.status, body: (await response.json()) as { error: string } };
    });
    expect(forced.status).toBe(403);
    expect(['read_only_role', 'admin_required']).toContain(forced.body.error);
    const keys = await t.api('GET', '/api/v2/keys?per_page=100');
    expect(JSON.stringify(keys.json.data)).not.toContain('forced');
    expect(t.cspViolations).toEqual([]);
  });
});
