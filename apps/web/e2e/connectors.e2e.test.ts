/**
 * Connectors, Virtualization, Backups and Dependencies in chromium against a real hub and the fake Proxmox VE
 * and Backup Server started here on loopback (the hub's loopback opt-in set; their CA pinned on the
 * connectors): a connector added through the form and checked, a guest stopped with its task result shown,
 * datastores read (groups in a namespace, maintenance mode), the graph drawn and a link declared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeBackupServer,
  startFakeProxmox,
  type FakeBackupServer,
  type FakeProxmox,
} from '@svc/testkit';
import { useConsole } from './harness.js';

const pveToken = 'root@pam!svc=5b2e8f1c-0a9d-4e7b-8c6f-3d2a1b0c9e8f';
const pbsToken = 'root@pam!svc:5b2e8f1c-0a9d-4e7b-8c6f-3d2a1b0c9e8f';

const h = useConsole({ env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' } });

let pve: FakeProxmox;
let pbs: FakeBackupServer;

beforeAll(async () => {
  pve = await startFakeProxmox({
    token: pveToken,
    cluster: 'homelab',
    nodes: [
      { name: 'pve1', online: true, ip: '192.0.2.11' },
      { name: 'pve2', online: true, ip: '192.0.2.12' },
    ],
    guests: [
      { vmid: 100, type: 'qemu', node: 'pve1', name: 'web', status: 'running' },
      { vmid: 101, type: 'lxc', node: 'pve2', name: 'dns', status: 'running' },
      { vmid: 102, type: 'qemu', node: 'pve2', name: 'media', status: 'stopped' },
    ],
    ceph: true,
  });
  pbs = await startFakeBackupServer({ token: pbsToken });
});

afterAll(async () => {
  await pve.close();
  await pbs.close();
});

describe('the connector pages', () => {
  it('adds a Proxmox VE connector through the form and checks it', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/connectors`);
    await t.page.getByText('No connectors yet').waitFor();
    await t.page.getByRole('button', { name: 'New connector' }).click();
    await t.page.getByLabel('Name').fill('homelab');
    await t.page.getByLabel('Base URL').fill(pve.server.url());
    await t.page.getByLabel('Credentials').fill(pveToken);
    await t.page.getByLabel('Pinned CA certificate').check();
    await t.page.getByLabel('CA certificate (PEM)').fill(pve.server.ca);
    await t.page.getByRole('button', { name: 'Add connector' }).click();
    const row = t.page.getByRole('table', { name: 'Connectors' }).getByRole('row', { name: /homelab/ });
    await row.getByRole('button', { name: 'Check homelab now' }).click();
    await row
      .getByRole('status')
      .getByText(/OK, \d+ assets/)
      .waitFor();

    const backup = await t.api('POST', '/api/v2/connectors', {
      kind: 'backup',
      name: 'pbs',
      base_url: pbs.server.url(),
      credentials: pbsToken,
      tls_mode: 'pinned_ca',
      tls_ca: pbs.server.ca,
    });
    expect(backup.status).toBe(201);
    const lab = await t.api('POST', '/api/v2/connectors', {
      kind: 'virt',
      name: 'test bench',
      base_url: pve.server.url(),
      credentials: pveToken,
      tls_mode: 'insecure',
      enabled: false,
    });
    expect(lab.status).toBe(201);
    await t.page.reload();
    const insecure = t.page
      .getByRole('table', { name: 'Connectors' })
      .getByRole('row', { name: /test bench/ });
    await insecure.getByText('Insecure: not verified').waitFor();
    await t.page
      .getByRole('table', { name: 'Connectors' })
      .getByRole('row', { name: /pbs/ })
      .getByText('ok')
      .waitFor();
    const listed = await t.api('GET', '/api/v2/connectors');
    expect(listed.text).not.toContain(pveToken.split('=')[1]);
    await t.screenshot('connectors');

    await t.page.getByRole('button', { name: 'New connector' }).click();
    await t.page.getByLabel('Skip verification (insecure)').check();
    await t.page
      .getByRole('note')
      .getByText(/will not check who answers/)
      .waitFor();
    await t.screenshot('connectors-form');
    await t.page.getByRole('button', { name: 'Cancel' }).click();
    expect(t.cspViolations).toEqual([]);
  }, 90_000);

  it('shows the cluster and stops a guest, with the task result', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/virt`);
    await t.page.getByText('Cluster homelab: quorate').waitFor();
    const guests = t.page.getByRole('table', { name: 'Guests' });
    await guests.getByRole('row', { name: /media/ }).waitFor();
    await t.page.getByRole('heading', { name: /Ceph/ }).waitFor();
    await guests.getByRole('button', { name: 'Stop web' }).click();
    await guests
      .getByRole('status')
      .getByText(/Task stop ended OK/)
      .waitFor();
    expect(pve.guests.find((g) => g.vmid === 100)?.status).toBe('stopped');
    await t.screenshot('virt');
    expect(t.cspViolations).toEqual([]);
  }, 90_000);

  it('shows the datastores with usage and the last backup per group', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/backups`);
    const main = t.page.getByRole('article', { name: 'Datastore main' });
    await main
      .getByRole('table', { name: 'Backup groups in main' })
      .getByRole('row', { name: /vm\/100/ })
      .waitFor();
    await t.page
      .getByRole('article', { name: 'Datastore usb' })
      .getByText(/unable to open chunk store/)
      .waitFor();
    // A group backed up into a namespace (one per cluster) shows, with the namespace's path.
    const namespaced = main
      .getByRole('table', { name: 'Backup groups in main' })
      .getByRole('row', { name: /vm\/200/ });
    expect(await namespaced.getByRole('cell').first().textContent()).toBe('cluster-b');
    // Maintenance mode: read-only and offline, the admin's message decoded.
    await t.page
      .getByRole('article', { name: 'Datastore offsite' })
      .getByRole('status')
      .filter({ hasText: /Maintenance mode read-only/ })
      .waitFor();
    await t.page
      .getByRole('article', { name: 'Datastore archive' })
      .getByRole('status')
      .filter({ hasText: /Maintenance mode offline.*\(disk swap until Monday\)/ })
      .waitFor();
    await t.screenshot('backup');
    expect(t.cspViolations).toEqual([]);
  }, 90_000);

  it('draws the dependency graph and declares a link', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/dependencies`);
    await t.page.getByRole('img', { name: /Dependency graph: \d+ assets/ }).waitFor();
    const form = t.page.getByRole('form', { name: 'Declare a link' });
    await form.getByLabel('Depends').selectOption({ label: 'web (vm)' });
    await form.getByLabel('on').selectOption({ label: 'local-zfs (pve1) (storage)' });
    await form.getByLabel('Label').fill('disk images');
    await form.getByRole('button', { name: 'Add link' }).click();
    await t.page.locator('.declared-links').getByText('web depends on local-zfs (pve1)').waitFor();
    const graph = await t.api('GET', '/api/v2/dependencies');
    expect(graph.text).toContain('"declared"');
    await t.screenshot('dependencies');
    expect(t.cspViolations).toEqual([]);
  }, 90_000);
});
