/**
 * The connector pages (Virtualization, Storage, Backups, Stacks, Home), Integrations, and the Tailscale, hub status and
 * enrollment admin pages (with the enrollment dialogs) and the bulk service form in other languages (decision 0090), against one hub
 * whose connectors point at the fake Proxmox VE, Backup Server, TrueNAS, Portainer and Home Assistant, and whose `tailscale`
 * is a script printing a running tailnet: each page in the pseudo-locale, where every visible text must come
 * from a catalogue (the vendors' data marked as data), then in German, with no missing key and a heading or
 * table found by its German name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBackupServer,
  startFakeProxmox,
  type FakeBackupServer,
  type FakeProxmox,
} from '@svc/testkit';
import {
  addCheckedConnector,
  connectServices,
  fakeTailscaleCli,
  type ConnectedServices,
} from './connected-fakes.js';
import { useConsole } from './harness.js';
import { de, expectLanguage, unmarkedTexts, waitSettled } from './languages-check.js';

const tailscale = fakeTailscaleCli('svc-e2e-i18n-tailscale-');

const pveToken = 'root@pam!svc=5b2e8f1c-0a9d-4e7b-8c6f-3d2a1b0c9e8f';
const pbsToken = 'root@pam!svc:5b2e8f1c-0a9d-4e7b-8c6f-3d2a1b0c9e8f';

const h = useConsole({ env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_TAILSCALE_BIN: tailscale.path } });

let pve: FakeProxmox;
let pbs: FakeBackupServer;
let services: ConnectedServices;

beforeAll(async () => {
  [pve, pbs] = await Promise.all([
    startFakeProxmox({
      token: pveToken,
      cluster: 'homelab',
      nodes: [{ name: 'pve1', online: true, ip: '192.0.2.11' }],
      guests: [
        { vmid: 100, type: 'qemu', node: 'pve1', name: 'web', status: 'running' },
        { vmid: 101, type: 'lxc', node: 'pve1', name: 'dns', status: 'stopped' },
      ],
      ceph: true,
    }),
    startFakeBackupServer({ token: pbsToken }),
  ]);
  await addCheckedConnector(h(), {
    kind: 'virt',
    name: 'pve',
    base_url: pve.server.url(),
    credentials: pveToken,
    tls_ca: pve.server.ca,
  });
  await addCheckedConnector(h(), {
    kind: 'backup',
    name: 'pbs',
    base_url: pbs.server.url(),
    credentials: pbsToken,
    tls_ca: pbs.server.ca,
  });
  services = await connectServices(h());
}, 60_000);

afterAll(async () => {
  await Promise.all([pve.close(), pbs.close(), services.close()]);
  tailscale.remove();
});

const bulkPanel = '[aria-labelledby="bulk-title"]';
let bulkGroup: string | undefined;

/** A group for the bulk service form (made once). */
async function groupId(): Promise<string> {
  if (bulkGroup === undefined) {
    const made = await h().api('POST', '/api/v2/groups', { name: 'i18n-bulk', asset_ids: [] });
    expect(made.status, made.text).toBe(201);
    bulkGroup = (made.json.data as { id: string }).id;
  }
  return bulkGroup;
}

/** Each page, and what shows once its data is read. */
const pages: [string, string][] = [
  ['virt', '.virt-panel'],
  ['backups', '.datastore table'],
  ['storage', '.data-table tbody tr'],
  ['stacks', '.endpoint-stacks .data-table tbody tr'],
  ['home', '.data-table tbody tr'],
  ['integrations', '.snippet'],
  ['admin/tailscale', '.facts'],
  ['admin/status', '.tiles'],
  ['admin/enrollment', '.page-header button.primary'],
];

describe('the connector pages in other languages', () => {
  it('marks every visible text of the pages in the pseudo-locale', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    const unmarked: Record<string, string[]> = {};
    for (const [index, [path, ready]] of pages.entries()) {
      await page.goto(`${t.baseUrl}/${path}${index === 0 ? '?lang=pseudo' : ''}`);
      await page.locator(ready).first().waitFor();
      await waitSettled(page);
      expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en-XA');
      unmarked[path] = await page.evaluate<string[]>(unmarkedTexts);
    }
    const inDialog = async (name: string, open: () => Promise<void>) => {
      await open();
      await page.getByRole('dialog').waitFor();
      unmarked[name] = await page.evaluate<string[]>(unmarkedTexts);
    };
    const closeDialog = async () => {
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    };
    // The enrollment page is last: a token created, shown once, then the revoke dialog.
    await inDialog('createToken', () => page.locator('.page-header button.primary').click());
    await page.getByRole('dialog').locator('input').first().fill('rack-9');
    await page.getByRole('dialog').locator('button[type="submit"]').click();
    await page.getByRole('dialog').locator('textarea').waitFor();
    unmarked.createdToken = await page.evaluate<string[]>(unmarkedTexts);
    await closeDialog();
    await page.locator('tbody tr', { hasText: 'rack-9' }).waitFor();
    unmarked.enrollmentList = await page.evaluate<string[]>(unmarkedTexts);
    await inDialog('revokeToken', () => page.locator('.cell-actions button.danger').first().click());
    await closeDialog();
    // The bulk service form, on a group's page (another area's): only the form's own texts.
    await page.goto(`${t.baseUrl}/groups/${await groupId()}`);
    await page.locator(bulkPanel).waitFor();
    await waitSettled(page);
    unmarked.bulk = await page.evaluate<string[]>(
      unmarkedTexts.replaceAll('document.body', `document.querySelector('${bulkPanel}')`),
    );
    expect(unmarked).toEqual({
      virt: [],
      backups: [],
      storage: [],
      stacks: [],
      home: [],
      integrations: [],
      'admin/tailscale': [],
      'admin/status': [],
      'admin/enrollment': [],
      createToken: [],
      createdToken: [],
      enrollmentList: [],
      revokeToken: [],
      bulk: [],
    });
  }, 120_000);

  it('shows the pages in German with no missing message', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    await page.goto(`${t.baseUrl}/virt?lang=de`);
    await page.getByRole('heading', { name: de['nav.virt'] }).waitFor();
    await page.getByRole('table', { name: de['virt.guests'] }).getByRole('row', { name: /web/ }).waitFor();
    await page.getByRole('button', { name: 'web stoppen' }).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/backups`);
    await page.getByRole('heading', { name: de['nav.backups'] }).waitFor();
    await page.getByRole('table', { name: 'Backup-Gruppen in main' }).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/storage`);
    await page.getByRole('heading', { name: de['nav.storage'] }).waitFor();
    await page.getByRole('table', { name: de['nas.datasets'] }).locator('tbody tr').first().waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/stacks`);
    await page.getByRole('table', { name: 'Stacks auf local' }).locator('tbody tr').first().waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/home`);
    await page.getByRole('heading', { name: de['nav.home'] }).waitFor();
    await page.getByRole('table', { name: de['homeauto.entities'] }).getByRole('button').first().waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/integrations`);
    await page.getByRole('heading', { name: de['integrations.mcpTitle'] }).waitFor();
    await page.getByRole('button', { name: 'MCP-URL kopieren' }).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/admin/tailscale`);
    await page.getByRole('button', { name: de['meshvpn.checkAgain'] }).waitFor();
    await page.getByText(de['meshvpn.httpsName']).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/admin/status`);
    await page.getByRole('table', { name: de['hub.processesTable'] }).locator('tbody tr').first().waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/admin/enrollment`);
    await page.getByRole('heading', { name: de['enrollment.title'] }).waitFor();
    await page.getByRole('button', { name: de['enrollment.create'] }).click();
    const form = page.getByRole('dialog', { name: de['enrollment.createTitle'] });
    await form.getByLabel(de['enrollment.name']).fill('rack-10');
    await form.getByRole('button', { name: de['enrollment.create'] }).click();
    const shown = page.getByRole('dialog', { name: 'Token rack-10 erstellt' });
    await shown.getByRole('button', { name: 'Registrierungsbefehl kopieren' }).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/groups/${await groupId()}`);
    await page.getByRole('heading', { name: de['bulk.title'] }).waitFor();
    await page.getByRole('button', { name: de['bulk.apply'] }).waitFor();
    expect(await page.locator(bulkPanel).innerText()).not.toContain('⟪');
  }, 90_000);
});
