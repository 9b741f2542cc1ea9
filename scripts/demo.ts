/**
 * `npm run demo`: a hub with every connector configured against the fake upstreams of @svc/testkit, so a person
 * can open the console and see every connector page filled. Everything listens on 127.0.0.1 only; the data
 * directory is a fresh temporary one; Ctrl-C stops it all. The hub needs a build (`npm run build`).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  claimOwner,
  startFakeBackupServer,
  startFakeHomeAssistant,
  startFakePortainer,
  startFakeProxmox,
  startFakeTruenas,
  tlsRequest,
} from '@svc/testkit';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const httpsPort = Number(process.env.SVC_DEMO_PORT ?? '8443');

const pveToken = 'root@pam!svc=2f6c9e1a-8b3d-4c5e-9f0a-1b2c3d4e5f60';
const pbsToken = 'root@pam!svc:2f6c9e1a-8b3d-4c5e-9f0a-1b2c3d4e5f60';

/** Each fake and the connector that points at it. Other kinds add one entry here. */
const upstreams = [
  async () => {
    const pve = await startFakeProxmox({
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
        { vmid: 103, type: 'lxc', node: 'pve1', name: 'monitoring', status: 'running' },
      ],
      ceph: true,
    });
    const connector = {
      kind: 'virt',
      name: 'homelab',
      base_url: pve.server.url(),
      credentials: pveToken,
      tls_mode: 'pinned_ca',
      tls_ca: pve.server.ca,
    };
    return { connector, close: () => pve.close() };
  },
  async () => {
    const pbs = await startFakeBackupServer({ token: pbsToken });
    const connector = {
      kind: 'backup',
      name: 'pbs',
      base_url: pbs.server.url(),
      credentials: pbsToken,
      tls_mode: 'pinned_ca',
      tls_ca: pbs.server.ca,
    };
    return { connector, close: () => pbs.close() };
  },
  async () => {
    const truenas = await startFakeTruenas();
    const connector = {
      kind: 'nas',
      name: 'truenas',
      base_url: truenas.url(),
      credentials: truenas.apiKey,
      tls_mode: 'pinned_ca',
      tls_ca: truenas.ca,
    };
    return { connector, close: () => truenas.close() };
  },
  async () => {
    const portainer = await startFakePortainer();
    const connector = {
      kind: 'stacks',
      name: 'portainer',
      base_url: portainer.url(),
      credentials: portainer.apiKey,
      tls_mode: 'pinned_ca',
      tls_ca: portainer.ca,
    };
    return { connector, close: () => portainer.close() };
  },
  async () => {
    const home = await startFakeHomeAssistant();
    const connector = {
      kind: 'homeauto',
      name: 'home assistant',
      base_url: home.url(),
      credentials: home.token,
      tls_mode: 'pinned_ca',
      tls_ca: home.ca,
    };
    return { connector, close: () => home.close() };
  },
];

/** A `tailscale` that prints a running tailnet serving the hub, for the admin Tailscale page. */
function writeFakeTailscale(dir: string): string {
  const file = path.join(dir, 'tailscale');
  const status = JSON.stringify({
    BackendState: 'Running',
    Version: '1.90.6',
    TailscaleIPs: ['100.64.0.7'],
    Self: { HostName: 'hub', DNSName: 'hub.tail1234.ts.net.' },
    CurrentTailnet: { Name: 'homelab', MagicDNSSuffix: 'tail1234.ts.net', MagicDNSEnabled: true },
    CertDomains: ['hub.tail1234.ts.net'],
  });
  const serve = JSON.stringify({
    TCP: { '443': { HTTPS: true } },
    Web: {
      'hub.tail1234.ts.net:443': {
        Handlers: { '/': { Proxy: `https+insecure://127.0.0.1:${String(httpsPort)}` } },
      },
    },
  });
  fs.writeFileSync(
    file,
    `#!/bin/sh\nif [ "$1" = status ]; then echo '${status}'; else echo '${serve}'; fi\n`,
    {
      mode: 0o755,
    },
  );
  return file;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const fakes = await Promise.all(upstreams.map((start) => start()));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-'));
  const dataDir = path.join(dir, 'data');
  const child = spawn(process.execPath, [path.join(repoRoot, 'apps/hub/bin/svc-hub.js')], {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      SVC_DATA_DIR: dataDir,
      SVC_TLS_CA_KEY_DIR: path.join(dir, 'ca-key'),
      SVC_HOST: '127.0.0.1',
      SVC_HTTPS_PORT: String(httpsPort),
      SVC_HTTP_PORT: String(httpsPort + 1),
      SVC_LOG_LEVEL: 'warn',
      // The fakes listen on loopback: the demo opts in, as tests do.
      SVC_OUTBOUND_ALLOW_LOOPBACK: 'true',
      SVC_TAILSCALE_BIN: writeFakeTailscale(dir),
    },
  });
  const stop = async () => {
    child.kill('SIGTERM');
    await Promise.all(fakes.map((f) => f.close()));
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());

  const baseUrl = `https://127.0.0.1:${String(httpsPort)}`;
  let ca = '';
  for (let tries = 0; ca === ''; tries += 1) {
    if (child.exitCode !== null || tries > 150) throw new Error('the hub did not start');
    const answer = await tlsRequest(`${baseUrl}/api/v1/tls/ca.crt`, { insecure: true }).catch(() => null);
    if (answer?.status === 200) ca = answer.body;
    else await sleep(200);
  }
  const owner = await claimOwner(baseUrl, dataDir, { ca });
  for (const { connector } of fakes) {
    const answer = await tlsRequest(`${baseUrl}/api/v2/connectors`, {
      method: 'POST',
      ca,
      headers: { authorization: `Bearer ${owner.ownerKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(connector),
    });
    if (answer.status !== 201)
      throw new Error(`adding ${connector.name}: ${String(answer.status)} ${answer.body}`);
  }
  console.log(`\nsvc hub demo: ${baseUrl} (user owner, password ${owner.password})`);
  console.log(`owner API key: ${owner.ownerKey}`);
  console.log(
    'Connectors: Proxmox VE (homelab), Proxmox Backup Server (pbs), TrueNAS, Portainer, Home Assistant;',
  );
  console.log('a fake tailscale CLI for admin, Tailscale. Ctrl-C stops everything.\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
