/**
 * `npm run demo`: a hub with every connector configured against the fake upstreams of @svc/testkit, so a person
 * can open the console and see every connector page filled. Everything listens on 127.0.0.1 only; the data
 * directory is a fresh temporary one; Ctrl-C stops it all. The hub needs a build (`npm run build`).
 *
 * Whatever happens — the hub not ready in time (SVC_DEMO_READY_TIMEOUT_S, default 120), the hub exiting, an
 * error, SIGINT or SIGTERM, even this script killed outright (tsx kills a script slow to answer a signal) — the
 * hub is stopped and the temporary folder (which holds the sealed CA key) is removed: the hub runs under
 * scripts/demo-guard.js, which does both when this process stops or goes away.
 */
import { spawn, type ChildProcess } from 'node:child_process';
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
/** How long the hub may take to answer /readyz with 200 (a first start makes its CA and the owner's hash). */
const readyTimeoutMs = Number(process.env.SVC_DEMO_READY_TIMEOUT_S ?? '120') * 1000;

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

/**
 * What the demo started, so that every way out stops and removes it. The hub runs under scripts/demo-guard.js,
 * which stops it when our end of its stdin closes and removes the folder once it has exited: that holds even
 * when this process is killed outright.
 */
type Fake = Awaited<ReturnType<(typeof upstreams)[number]>>;
const started: { guard: ChildProcess | null; dir: string | null; fakes: Fake[] } = {
  guard: null,
  dir: null,
  fakes: [],
};
let cleaning: Promise<void> | null = null;
let guardExit: Promise<void> = Promise.resolve();

/** The hub's guard while it runs (it exits once the hub has exited and the folder is gone). */
function runningGuard(): ChildProcess | null {
  const guard = started.guard;
  return guard !== null && guard.exitCode === null && guard.signalCode === null ? guard : null;
}

function removeDir(): void {
  if (started.dir === null) return;
  fs.rmSync(started.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  started.dir = null;
}

/** Stops the hub and waits until it has exited and its folder is gone; closes the fakes. */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    const guard = runningGuard();
    if (guard) {
      guard.stdin?.end();
      // The guard gives the hub 10 s before SIGKILL; past 20 s something is wrong with the guard itself.
      const kill = setTimeout(() => guard.kill('SIGKILL'), 20_000);
      await guardExit;
      clearTimeout(kill);
    }
    await Promise.allSettled(started.fakes.map((fake) => fake.close()));
    removeDir(); // when the hub never started; else the guard has removed it already
  })();
  return cleaning;
}

/** Stops everything, then exits with `code`. */
function finish(code: number): void {
  cleanUp().then(
    () => process.exit(code),
    (error: unknown) => {
      console.error(`svc hub demo: cleaning up failed: ${String(error)}`);
      process.exit(code === 0 ? 1 : code);
    },
  );
}

// Exiting any other way (a second Ctrl-C): the guard sees its stdin close and does the rest; without a
// guard there is only the folder.
process.on('exit', () => {
  if (runningGuard()) return;
  try {
    removeDir();
  } catch {
    // Nothing more can be done while exiting.
  }
});
let signalled = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (signalled) process.exit(130);
    signalled = true;
    console.log('\nsvc hub demo: stopping the hub and removing its folder…');
    finish(signal === 'SIGINT' ? 130 : 143);
  });
}

/** Until the hub answers /readyz with 200; refuses when it exits first or the time is up. */
async function waitReady(baseUrl: string): Promise<void> {
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (!runningGuard()) throw new Error('the hub exited before it was ready (its message is above)');
    const answer = await tlsRequest(`${baseUrl}/readyz`, { insecure: true }).catch(() => null);
    if (answer?.status === 200) return;
    if (Date.now() >= deadline) {
      throw new Error(
        `the hub was not ready after ${String(readyTimeoutMs / 1000)} s (${answer ? `/readyz answered ${String(answer.status)}` : 'no answer on /readyz'}); ` +
          'set SVC_DEMO_READY_TIMEOUT_S to wait longer',
      );
    }
    await sleep(Math.min(200, Math.max(0, deadline - Date.now())));
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-demo-'));
  started.dir = dir;
  for (const start of upstreams) {
    const fake = await start();
    started.fakes.push(fake);
    if (cleaning) return; // stopped meanwhile: what was started is being closed
  }
  const dataDir = path.join(dir, 'data');
  const guard = spawn(
    process.execPath,
    [path.join(repoRoot, 'scripts/demo-guard.js'), dir, path.join(repoRoot, 'apps/hub/bin/svc-hub.js')],
    {
      cwd: repoRoot,
      stdio: ['pipe', 'inherit', 'inherit'],
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
    },
  );
  started.guard = guard;
  guardExit = new Promise((resolve) => {
    guard.once('exit', () => {
      resolve();
    });
  });
  guard.once('exit', (code, signal) => {
    if (cleaning) return;
    console.error(`svc hub demo: the hub exited (${signal ?? `code ${String(code)}`}); stopping`);
    finish(1);
  });

  const baseUrl = `https://127.0.0.1:${String(httpsPort)}`;
  await waitReady(baseUrl);
  const caAnswer = await tlsRequest(`${baseUrl}/api/v1/tls/ca.crt`, { insecure: true });
  if (caAnswer.status !== 200) throw new Error(`the hub's CA: ${String(caAnswer.status)} ${caAnswer.body}`);
  const ca = caAnswer.body;
  const owner = await claimOwner(baseUrl, dataDir, { ca });
  for (const { connector } of started.fakes) {
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
  if (cleaning) return; // a signal or the hub's exit is already stopping everything
  console.error(`svc hub demo: ${error instanceof Error ? error.message : String(error)}`);
  finish(1);
});
