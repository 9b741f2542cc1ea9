/**
 * The Storage, Stacks and Home pages and the Tailscale admin page in chromium against a real hub whose
 * connectors point at the fake TrueNAS, Portainer and Home Assistant (loopback opt-in, each fake's CA pinned),
 * and whose `tailscale` is a script printing a running tailnet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectServices, fakeTailscaleCli, type ConnectedServices } from './connected-fakes.js';
import { useConsole } from './harness.js';

const tailscale = fakeTailscaleCli('svc-e2e-tailscale-');
const h = useConsole({ env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_TAILSCALE_BIN: tailscale.path } });

let services: ConnectedServices;

beforeAll(async () => {
  services = await connectServices(h());
}, 60_000);

afterAll(async () => {
  await services.close();
  tailscale.remove();
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
    expect(services.homeassistant.states.get('light.kitchen')?.state).toBe('on');
    expect(services.homeassistant.serviceCalls).toEqual([
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
