/**
 * What the browser tests of the connected services share: a `tailscale` CLI that prints a running tailnet
 * (for SVC_TAILSCALE_BIN), and the fake TrueNAS, Portainer and Home Assistant added to a hub as connectors,
 * each waited for until its first check answered `ok`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import {
  startFakeHomeAssistant,
  startFakePortainer,
  startFakeTruenas,
  type FakeHomeAssistant,
  type FakePortainer,
  type FakeTruenas,
} from '@svc/testkit';
import type { ConsoleHarness } from './harness.js';

/** A `tailscale` script in a folder of its own; `remove()` deletes the folder. */
export function fakeTailscaleCli(prefix: string): { path: string; remove: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const cli = path.join(dir, 'tailscale');
  fs.writeFileSync(
    cli,
    `#!/bin/sh
if [ "$1" = status ]; then
  echo '{"BackendState":"Running","Version":"1.90.6","TailscaleIPs":["100.64.0.7"],"Self":{"HostName":"hub","DNSName":"hub.tail1234.ts.net."},"CurrentTailnet":{"Name":"homelab","MagicDNSSuffix":"tail1234.ts.net","MagicDNSEnabled":true},"CertDomains":["hub.tail1234.ts.net"]}'
else
  echo '{"TCP":{"443":{"HTTPS":true}},"Web":{"hub.tail1234.ts.net:443":{"Handlers":{"/":{"Proxy":"https+insecure://127.0.0.1:8443"}}}}}'
fi
`,
    { mode: 0o755 },
  );
  return {
    path: cli,
    remove: () => {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Adds a connector (its CA pinned unless the body says otherwise) and waits for its first check: `ok`. */
export async function addCheckedConnector(t: ConsoleHarness, body: Record<string, unknown>): Promise<void> {
  const created = await t.api('POST', '/api/v2/connectors', { tls_mode: 'pinned_ca', ...body });
  expect(created.status, created.text).toBe(201);
  const id = (created.json.data as { id: string }).id;
  // The create starts the first check and inventory in the background: wait for it.
  for (let tries = 0; tries < 200; tries += 1) {
    const connector = await t.api('GET', `/api/v2/connectors/${id}`);
    const health = (connector.json.data as { health: string }).health;
    if (health !== 'unknown') {
      expect(health, connector.text).toBe('ok');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`connector ${id} never checked`);
}

export interface ConnectedServices {
  truenas: FakeTruenas;
  portainer: FakePortainer;
  homeassistant: FakeHomeAssistant;
  close: () => Promise<void>;
}

/** The fake TrueNAS, Portainer and Home Assistant, started and added to the hub as checked connectors. */
export async function connectServices(t: ConsoleHarness): Promise<ConnectedServices> {
  const [truenas, portainer, homeassistant] = await Promise.all([
    startFakeTruenas(),
    startFakePortainer(),
    startFakeHomeAssistant(),
  ]);
  await addCheckedConnector(t, {
    kind: 'nas',
    name: 'truenas',
    base_url: truenas.url(),
    credentials: truenas.apiKey,
    tls_ca: truenas.ca,
  });
  await addCheckedConnector(t, {
    kind: 'stacks',
    name: 'portainer',
    base_url: portainer.url(),
    credentials: portainer.apiKey,
    tls_ca: portainer.ca,
  });
  await addCheckedConnector(t, {
    kind: 'homeauto',
    name: 'home assistant',
    base_url: homeassistant.url(),
    credentials: homeassistant.token,
    tls_ca: homeassistant.ca,
  });
  return {
    truenas,
    portainer,
    homeassistant,
    close: async () => {
      await Promise.all([truenas.close(), portainer.close(), homeassistant.close()]);
    },
  };
}
