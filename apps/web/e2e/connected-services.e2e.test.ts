/**
 * The Storage, Stacks and Home pages and the Tailscale admin page in chromium against a real hub whose
 * connectors point at the fake TrueNAS, Portainer and Home Assistant (loopback opt-in, each fake's CA pinned),
 * and whose `tailscale` is a script printing a running tailnet.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startFakeHomeAssistant,
  startFakePortainer,
  startFakeTruenas,
  type FakeHomeAssistant,
  type FakePortainer,
  type FakeTruenas,
} from '@svc/testkit';
import { useConsole } from './harness.js';

const cliDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-tailscale-'));
const tailscale = path.join(cliDir, 'tailscale');
fs.writeFileSync(
  tailscale,
  `#!/bin/sh
if [ "$1" = status ]; then
  echo '{"BackendState":"Running","Version":"1.90.6","TailscaleIPs":["100.64.0.7"],"Self":{"HostName":"hub","DNSName":"hub.tail1234.ts.net."},"CurrentTailnet":{"Name":"homelab","MagicDNSSuffix":"tail1234.ts.net","MagicDNSEnabled":true},"CertDomains":["hub.tail1234.ts.net"]}'
else
  echo '{"TCP":{"443":{"HTTPS":true}},"Web":{"hub.tail1234.ts.net:443":{"Handlers":{"/":{"Proxy":"https+insecure://127.0.0.1:8443"}}}}}'
fi
`,
  { mode: 0o755 },
);

const h = useConsole({ env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_TAILSCALE_BIN: tailscale } });

let truenas: FakeTruenas;
let portainer: FakePortainer;
let homeassistant: FakeHomeAssistant;

async function addConnector(body: Record<string, unknown>): Promise<void> {
  const created = await h().api('POST', '/api/v2/connectors', { tls_mode: 'pinned_ca', ...body });
  expect(created.status, created.text).toBe(201);
  const id = (created.json.data as { id: string }).id;
  // The create starts the first check and inventory in the background: wait for it.
  for (let tries = 0; tries < 200; tries += 1) {
    const connector = await h().api('GET', `/api/v2/connectors/${id}`);
    const health = (connector.json.data as { health: string }).health;
    if (health !== 'unknown') {
      expect(health, connector.text).toBe('ok');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`connector ${id} never checked`);
}

beforeAll(async () => {
  [truenas, portainer, homeassistant] = await Promise.all([
    startFakeTruenas(),
    startFakePortainer(),
    startFakeHomeAssistant(),
  ]);
  await addConnector({
    kind: 'nas',
    name: 'truenas',
    base_url: truenas.url(),
    credentials: truenas.apiKey,
    tls_ca: truenas.ca,
  });
  await addConnector({
    kind: 'stacks',
    name: 'portainer',
    base_url: portainer.url(),
    credentials: portainer.apiKey,
    tls_ca: portainer.ca,
  });
  await addConnector({
    kind: 'homeauto',
    name: 'home assistant',
    base_url: homeassistant.url(),
    credentials: homeassistant.token,
    tls_ca: homeassistant.ca,
  });
}, 60_000);

afterAll(async () => {
  await Promise.all([truenas.close(), portainer.close(), homeassistant.close()]);
  fs.rmSync(cliDir, { recursive: true, force: true });
});

describe('connected services in the console', () => {
  it('shows TrueNAS pools and datasets with their sizes', async () => {
    const t = h();
    await t.signIn('viewer');
    await t.page.goto(`${t.baseUrl}/storage`);
    const pools = t.page.getByRole('table', { name: 'Pools' });
    await pools.getByRole('row', { name: /tank/ }).getByText('ONLINE').waitFor();
    await pools
      .getByRole('row', { name: /backup/ })
      .getByText('DEGRADED')
      .waitFor();
    const datasets = t.page.getByRole('table', { name: 'Datasets' });
    await datasets.getByRole('row', { name: /tank\/media/ }).waitFor();
    await datasets
      .getByRole('row', { name: /backup\/vault/ })
      .getByText('locked')
      .waitFor();
    await t.screenshot('nas');
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('shows Portainer endpoints and their stacks', async () => {
    const t = h();
    await t.signIn('viewer');
    await t.page.goto(`${t.baseUrl}/stacks`);
    const local = t.page.getByRole('table', { name: 'Stacks on local' });
    await local.getByRole('row', { name: /media/ }).getByText('active').waitFor();
    await local
      .getByRole('row', { name: /monitoring/ })
      .getByText('inactive')
      .waitFor();
    await t.page
      .getByRole('table', { name: 'Stacks on edge-pi' })
      .getByRole('row', { name: /pihole/ })
      .waitFor();
    await t.screenshot('stacks');
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('shows Home Assistant entities and turns a light on', async () => {
    const t = h();
    await t.signIn('operator');
    await t.page.goto(`${t.baseUrl}/home`);
    const entities = t.page.getByRole('table', { name: 'Entities' });
    await entities
      .getByRole('row', { name: /Rack temperature/ })
      .getByText('27.5 °C')
      .waitFor();
    await entities.getByRole('button', { name: 'Turn on Kitchen' }).click();
    await entities.getByRole('button', { name: 'Turn off Kitchen' }).waitFor();
    expect(homeassistant.states.get('light.kitchen')?.state).toBe('on');
    expect(homeassistant.serviceCalls).toEqual([
      { service: 'light.turn_on', data: { entity_id: ['light.kitchen'] } },
    ]);
    await t.screenshot('homeauto');
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('shows the tailnet HTTPS name and what serve publishes', async () => {
    const t = h();
    await t.signIn('admin');
    await t.page.goto(`${t.baseUrl}/admin/tailscale`);
    await t.page.getByRole('link', { name: 'hub.tail1234.ts.net' }).waitFor();
    await t.page
      .getByRole('table', { name: 'Serve handlers' })
      .getByText('https+insecure://127.0.0.1:8443')
      .waitFor();
    await t.screenshot('meshvpn');
    expect(t.cspViolations).toEqual([]);
  }, 60_000);
});
