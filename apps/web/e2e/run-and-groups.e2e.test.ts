/**
 * Run and Groups in chromium against a real hub with its real local agent: a command run on this machine
 * with its output, exit code and stderr shown; several targets, one offline, each with its own result; the
 * hub's refusal of a timeout under its field; a group made, an asset added with the picker, a command run
 * on the group, the group renamed and deleted; and a viewer who can do none of it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Group } from '@svc/protocol';
import { useConsole } from './harness.js';
import { connectFakeAgent, createManualAsset, localAsset, type EnrolledFake } from './fleet.js';

const h = useConsole({ localAgent: true });
const fakes: EnrolledFake[] = [];

afterAll(() => {
  for (const fake of fakes) fake.agent.close();
});

describe('the Run page', () => {
  it('runs a command on the local agent and shows its output as it arrives', async () => {
    const t = h();
    const local = await localAsset(t);
    await t.signIn('owner');

    await t.page.goto(`${t.baseUrl}/run?asset=${local.id}`);
    await t.page.getByRole('list', { name: 'Chosen assets' }).getByText(local.name).waitFor();
    await t.page
      .getByLabel('Command', { exact: true })
      .fill('echo hello-from-console; echo oops >&2; exit 3');
    await t.page.getByLabel(/^Timeout/).fill('20');
    await t.page.getByRole('button', { name: 'Run', exact: true }).click();

    const result = t.page.locator(`li[data-asset-id="${local.id}"]`);
    await result.locator('.result-status', { hasText: 'ok' }).waitFor();
    expect(await result.locator('.result-exit').textContent()).toBe('exit code 3');
    expect(await result.getByRole('heading', { name: 'stdout' }).count()).toBe(1);
    expect(await result.locator('pre').first().textContent()).toBe('hello-from-console\n');
    expect(await result.locator('pre').nth(1).textContent()).toBe('oops\n');
    await t.page.getByText('1 target: 1 ok').waitFor();
    await t.screenshot('run');
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('runs on several assets picked by name, each with its own result, the offline one as the hub says', async () => {
    const t = h();
    const local = await localAsset(t);
    const manual = await createManualAsset(t, 'cold-spare');
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/run`);

    for (const name of [local.name, manual.name]) {
      await t.page.getByRole('combobox', { name: 'Add an asset' }).fill(name);
      await t.page.getByRole('option', { name, exact: true }).click();
    }
    await t.page.getByRole('list', { name: 'Chosen assets' }).getByText(manual.name).waitFor();
    await t.page.getByLabel('Command', { exact: true }).fill('uname -s');
    await t.page.getByRole('button', { name: 'Run', exact: true }).click();

    await t.page.getByText('2 targets: 1 ok, 1 offline').waitFor();
    const offline = t.page.locator(`li[data-asset-id="${manual.id}"]`);
    expect(await offline.locator('.result-status').textContent()).toBe('offline');
    expect(await offline.locator('.result-error').textContent()).toContain(manual.id);
    expect(await t.page.locator(`li[data-asset-id="${local.id}"]`).locator('pre').first().textContent()).toBe(
      'Linux\n',
    );
  }, 60_000);

  it('marks output the hub cut as truncated', async () => {
    const t = h();
    const chatty = await connectFakeAgent(t, 'chatty', {
      'exec.run': () => ({
        exit_code: 0,
        signal: null,
        stdout: 'x'.repeat(4096),
        stderr: '',
        truncated: true,
        timed_out: false,
        duration_ms: 1200,
      }),
    });
    fakes.push(chatty);
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/run?asset=${chatty.assetId}`);
    await t.page.getByRole('list', { name: 'Chosen assets' }).getByText('chatty').waitFor();
    await t.page.getByLabel('Command', { exact: true }).fill('cat /var/log/big.log');
    await t.page.getByRole('button', { name: 'Run', exact: true }).click();

    const result = t.page.locator(`li[data-asset-id="${chatty.assetId}"]`);
    await result.getByText('output truncated').waitFor();
    expect(await result.locator('.result-duration').textContent()).toBe('1.20 s');
  }, 60_000);

  it("shows the hub's refusal of a timeout under the field", async () => {
    const t = h();
    const local = await localAsset(t);
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/run?asset=${local.id}`);
    await t.page.getByRole('list', { name: 'Chosen assets' }).getByText(local.name).waitFor();

    await t.page.getByLabel('Command', { exact: true }).fill('true');
    await t.page.getByLabel(/^Timeout/).fill('3601');
    await t.page.getByRole('button', { name: 'Run', exact: true }).click();

    await t.page.getByRole('alert').filter({ hasText: '400 validation' }).waitFor();
    expect(await t.page.getByLabel(/^Timeout/).getAttribute('aria-invalid')).toBe('true');
  }, 60_000);
});

describe('groups', () => {
  it('makes a group, adds an asset with the picker, runs a command on it, renames and deletes it', async () => {
    const t = h();
    const local = await localAsset(t);
    await t.signIn('owner');
    await t.page.getByRole('link', { name: 'Groups', exact: true }).click();
    await t.page.getByText('No groups yet').waitFor();

    await t.page.getByRole('button', { name: 'New group' }).click();
    await t.page.getByLabel('Name').fill('web servers');
    await t.page.getByLabel('Description').fill('Everything that answers on :443');
    await t.page.getByRole('button', { name: 'Create group' }).click();
    await t.page.getByRole('heading', { name: 'web servers', level: 1 }).waitFor();

    await t.page.getByRole('combobox', { name: 'Add an asset to the group' }).fill(local.name);
    await t.page.getByRole('option', { name: local.name, exact: true }).click();
    const members = t.page.getByRole('table', { name: 'Members' });
    await members.getByRole('link', { name: local.name }).waitFor();
    await t.page.getByRole('heading', { name: 'Members (1)' }).waitFor();
    const groups = await t.api('GET', '/api/v2/groups');
    const [made] = groups.json.data as Group[];
    expect(made).toMatchObject({ name: 'web servers', asset_ids: [local.id] });
    await t.screenshot('group');

    await t.page.getByRole('link', { name: 'Run a command' }).click();
    await t.page.getByLabel('Group', { exact: true }).waitFor();
    expect(await t.page.getByLabel('Group', { exact: true }).inputValue()).toBe(made?.id);
    await t.page.getByLabel('Command', { exact: true }).fill('echo from-the-group');
    await t.page.getByRole('button', { name: 'Run', exact: true }).click();
    await t.page.getByText('1 target: 1 ok').waitFor();
    expect(await t.page.locator(`li[data-asset-id="${local.id}"] pre`).first().textContent()).toBe(
      'from-the-group\n',
    );

    await t.page.getByRole('link', { name: 'Groups', exact: true }).click();
    await t.page.getByRole('table', { name: 'Groups' }).getByRole('link', { name: 'web servers' }).waitFor();
    await t.screenshot('groups');
    await t.page.getByRole('link', { name: 'web servers' }).click();
    await t.page.getByRole('button', { name: 'Rename' }).click();
    await t.page.getByLabel('Name').fill('front ends');
    await t.page.getByRole('button', { name: 'Save' }).click();
    await t.page.getByRole('heading', { name: 'front ends', level: 1 }).waitFor();

    await t.page.getByRole('button', { name: `Remove ${local.name} from the group` }).click();
    await t.page.getByRole('heading', { name: 'Members (0)' }).waitFor();

    await t.page.getByRole('button', { name: 'Delete' }).click();
    await t.page
      .getByRole('dialog', { name: 'Delete the group front ends?' })
      .getByRole('button', {
        name: 'Delete group',
      })
      .click();
    await t.page.getByText('No groups yet').waitFor();
    expect((await t.api('GET', '/api/v2/groups')).json.data).toEqual([]);
    expect(t.cspViolations).toEqual([]);
  }, 90_000);

  it('shows a viewer no way to run or change groups, and the hub refuses a forced one', async () => {
    const t = h();
    const local = await localAsset(t);
    const made = await t.api('POST', '/api/v2/groups', { name: 'read only', asset_ids: [local.id] });
    const group = made.json.data as Group;
    await t.signIn('viewer');

    await t.page.goto(`${t.baseUrl}/run`);
    await t.page.getByText('Your role can read the fleet but not run commands on it.').waitFor();
    expect(await t.page.getByRole('button', { name: 'Run', exact: true }).count()).toBe(0);

    await t.page.goto(`${t.baseUrl}/groups/${group.id}`);
    await t.page.getByRole('table', { name: 'Members' }).getByRole('link', { name: local.name }).waitFor();
    for (const name of ['Rename', 'Delete', `Remove ${local.name} from the group`]) {
      expect(await t.page.getByRole('button', { name }).count(), name).toBe(0);
    }
    // In the page, not the header: its language menu is a combobox for every role.
    expect(await t.page.getByRole('main').getByRole('combobox').count()).toBe(0);

    const forced = await t.page.evaluate(async (id) => {
      const response = await fetch(`/api/v2/groups/${id}`, { method: 'DELETE' });
      return response.status;
    }, group.id);
    expect(forced).toBe(403);
    expect((await t.api('GET', `/api/v2/groups/${group.id}`)).status).toBe(200);
  }, 60_000);
});
