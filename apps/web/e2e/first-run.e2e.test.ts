/**
 * The first run in the browser: the owner signs in with the generated password from the data directory, is
 * asked to choose a new one (nothing else opens before), and the hub deletes the file.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useConsole } from './harness.js';

const h = useConsole({ keepFirstRun: true });

describe('console first run', () => {
  it('tells where the generated password is, then has the owner choose a new one', async () => {
    const t = h();
    const file = path.join(t.dataDir, 'owner-credentials.txt');
    const generated = /^password=(\S+)$/m.exec(fs.readFileSync(file, 'utf8'))?.[1] ?? '';

    await t.page.goto(`${t.baseUrl}/`);
    await t.page.getByText('First sign-in on a new hub?').click();
    expect(await t.page.getByText('owner-credentials.txt').first().isVisible()).toBe(true);

    await t.signInWith({ username: 'owner', password: generated });
    await t.page.getByRole('heading', { name: 'Choose your password' }).waitFor();
    expect(await t.page.getByRole('navigation', { name: 'Main' }).count()).toBe(0);
    await t.screenshot('first-run');

    const chosen = 'a long passphrase of my own';
    await t.page.getByLabel('Current (generated) password').fill('not the generated one');
    await t.page.getByLabel('New password (12 characters or more)').fill(chosen);
    await t.page.getByLabel('New password again').fill(chosen);
    await t.page.getByRole('button', { name: 'Set password' }).click();
    // The hub's own refusal, as it words it, under the field it names.
    await t.page.getByRole('alert').waitFor();
    expect(await t.page.getByRole('alert').textContent()).toContain('400 validation');
    expect(await t.page.getByText('is not the current password').count()).toBeGreaterThan(0);

    await t.page.getByLabel('Current (generated) password').fill(generated);
    await t.page.getByLabel('New password (12 characters or more)').fill(chosen);
    await t.page.getByLabel('New password again').fill(chosen);
    await t.page.getByRole('button', { name: 'Set password' }).click();
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(fs.existsSync(file)).toBe(false);

    await t.page.getByRole('button', { name: 'Sign out' }).click();
    await t.signInWith({ username: 'owner', password: chosen });
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    expect(t.cspViolations).toEqual([]);
  });
});
