/**
 * The Discovery page in chromium against a real hub: a run asks a fake agent (its containers and listening
 * ports), the suggestions are listed, one is dismissed and one accepted after asking; with the LAN scan
 * switched on in the settings, a loopback /32 is probed (the hub's loopback opt-in is set for this test
 * only) and the host found becomes an asset only when accepted.
 */
import net from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRequestPayload, Asset } from '@svc/protocol';
import { useConsole } from './harness.js';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';

const h = useConsole({ env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' } });

let fake: EnrolledFake;
let listener: net.Server;
let openPort: number;
const scans: AgentRequestPayload<'discovery.scan'>[] = [];

beforeAll(async () => {
  const t = h();
  listener = net.createServer((socket) => socket.destroy());
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  openPort = (listener.address() as net.AddressInfo).port;
  fake = await connectFakeAgent(t, 'media-01', {
    'discovery.scan': (payload) => {
      scans.push(payload);
      return {
        applied: { container: payload.container, port_scan: payload.port_scan },
        containers: [
          {
            name: 'jellyfin',
            image: 'jellyfin/jellyfin:10.10.3',
            state: 'running',
            ports: [{ private_port: 8096, public_port: 8096, ip: '0.0.0.0', type: 'tcp' }],
            compose_project: 'media',
          },
        ],
        listening: [
          { protocol: 'tcp', address: '0.0.0.0', port: 22 },
          { protocol: 'tcp', address: '0.0.0.0', port: 8096 },
        ],
      };
    },
  });
}, 60_000);

afterAll(async () => {
  fake.agent.close();
  await new Promise((resolve) => listener.close(resolve));
});

describe('the Discovery page', () => {
  it('runs discovery, lists the suggestions, and dismisses and accepts after asking', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/discovery`);
    await t.page.getByRole('heading', { name: 'Discovery', level: 1 }).waitFor();
    await t.page.getByText('No suggestions').waitFor();

    await t.page.getByRole('button', { name: 'Run discovery' }).click();
    await t.page.getByRole('status').filter({ hasText: 'Discovery done: 1 of 1 agents answered' }).waitFor();
    expect(scans).toEqual([{ container: true, port_scan: true }]);
    const table = t.page.getByRole('table', { name: 'Suggestions' });
    await table.getByText('jellyfin (jellyfin/jellyfin:10.10.3) on media-01').waitFor();
    await table.getByText('TCP 22 on media-01').waitFor();
    await t.screenshot('discovery');

    await t.page.getByRole('button', { name: 'Dismiss TCP 22 on media-01' }).click();
    await t.page.getByRole('dialog').getByRole('button', { name: 'Dismiss' }).click();
    await t.page.getByRole('status').filter({ hasText: 'TCP 22 on media-01: dismissed' }).waitFor();
    await t.page
      .getByRole('button', { name: 'Accept jellyfin (jellyfin/jellyfin:10.10.3) on media-01' })
      .click();
    await t.page.getByRole('dialog').getByRole('button', { name: 'Accept' }).click();
    await t.page.getByRole('status').filter({ hasText: 'accepted' }).waitFor();
    // Pending only, by default: both decided ones are gone from the list.
    await table.getByText('TCP 8096 on media-01').waitFor();
    expect(await table.getByText('TCP 22 on media-01').count()).toBe(0);
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('makes a service check from a suggestion in one click', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/discovery?status=all`);
    await t.page
      .getByRole('button', { name: 'Watch jellyfin (jellyfin/jellyfin:10.10.3) on media-01 with a check' })
      .click();
    const made = t.page.getByRole('status').filter({ hasText: 'check made' });
    await made.waitFor();
    const name = ((await made.textContent()) ?? '').split(': check made')[0] ?? '';
    // The hub made it from the container's published port, on its asset.
    const listed = await t.api('GET', '/api/v2/checks?per_page=100');
    expect(listed.status).toBe(200);
    const checks = (
      listed.json as { data: { name: string; kind: string; target: string; asset_id: string }[] }
    ).data;
    expect(checks).toEqual([
      expect.objectContaining({ name, kind: 'tcp', target: expect.stringMatching(/:8096$/) as unknown }),
    ]);
    expect(checks[0]?.asset_id).toBe(fake.assetId);
    await made.getByRole('link', { name: 'See it on the Checks page' }).click();
    await t.page.getByRole('table', { name: 'Service checks' }).getByText(name).waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('probes a LAN range only when enabled, and adds a host only when accepted', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/discovery`);
    await t.page.getByLabel('LAN CIDR (optional)').fill('127.0.0.1/32');
    await t.page.getByLabel('Ports (optional)').fill(String(openPort));
    await t.page.getByRole('button', { name: 'Run discovery' }).click();
    await t.page.getByRole('alert').filter({ hasText: 'services.discovery_default_lan_scan' }).waitFor();

    const enabled = await t.api('PATCH', '/api/settings/connectors', {
      'services.discovery_default_lan_scan': true,
    });
    expect(enabled.status).toBe(200);
    await t.page.getByRole('button', { name: 'Run discovery' }).click();
    await t.page.getByRole('status').filter({ hasText: 'LAN 127.0.0.1/32: 1 new host in 1 probe' }).waitFor();
    const before = (await t.api('GET', '/api/v2/assets?per_page=500')).json.data as Asset[];
    expect(before.some((a) => a.name === 'nas-by-lan')).toBe(false);

    const title = `127.0.0.1 answers on TCP ${String(openPort)}`;
    await t.page.getByRole('button', { name: `Accept ${title}` }).click();
    const dialog = t.page.getByRole('dialog');
    await dialog.getByLabel('Asset name').fill('nas-by-lan');
    await t.screenshot('discovery-accept');
    await dialog.getByRole('button', { name: 'Add as asset' }).click();
    await t.page.getByRole('status').filter({ hasText: 'added as an asset' }).waitFor();
    const after = (await t.api('GET', '/api/v2/assets?per_page=500')).json.data as Asset[];
    expect(after.find((a) => a.name === 'nas-by-lan')).toMatchObject({
      ip_addresses: ['127.0.0.1'],
      source: 'manual',
    });
  }, 60_000);

  it('shows a viewer the suggestions without controls', async () => {
    const t = h();
    await t.signIn('viewer');
    await t.page.goto(`${t.baseUrl}/discovery`);
    await t.page.getByRole('table', { name: 'Suggestions' }).waitFor();
    expect(await t.page.getByRole('button', { name: 'Run discovery' }).count()).toBe(0);
    expect(await t.page.getByRole('button', { name: /^(Accept|Dismiss|Watch) / }).count()).toBe(0);
  }, 60_000);
});
