/**
 * End to end (issue 18, "Done when": the container image is built and started in a test): the image of
 * deploy/container is built with podman from the Debian minbase base (a debootstrap root filesystem tarball),
 * Node 24 from `.node/`, and the built hub; started, and reached from outside: /readyz answers ready, the
 * console is served, the hub runs as its own user, and its state lives in the volume (a new container on the
 * same volume is the same hub, with the same CA).
 *
 * The test stays on loopback: the base tarball is made beforehand, from the network, by
 * deploy/container/prepare-base.sh (.ci/run runs it in its install phase), and the image is built with
 * SVC_OFFLINE=1, in which build-image.sh never runs debootstrap nor fetches Node and `podman build` has no
 * network and pulls nothing. Without the tarball the test skips, naming the command that prepares it; in CI
 * (CI=true) it fails instead, since .ci/run has prepared it. docs/container.md.
 *
 * podman runs on storage of its own in a temporary directory (--root/--runroot, runc, cgroupfs, like
 * packages/testkit/src/podman.ts), removed at the end; the container shares the host's network on loopback
 * ports.
 */
import { execFile, spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { podmanMissing } from '@svc/testkit';
import { fetchHubTrust, freePort, waitFor, type HubTrust } from './support.js';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const buildScript = path.join(repoRoot, 'deploy/container/build-image.sh');
const image = 'localhost/svc-hub:e2e';
/** Where deploy/container/prepare-base.sh writes the base by default (its SVC_BASE_TARBALL). */
const baseTarball = path.join(repoRoot, '.cache/container-base/debian-bookworm-minbase.tar');
const baseMissing = `the image's base ${path.relative(repoRoot, baseTarball)} is not prepared (as root: deploy/container/prepare-base.sh, which runs debootstrap against the Debian mirror)`;
/** CI prepares the base in its install phase (.ci/run): there, a missing base is a failure, not a skip. */
const isCi = !['', '0', 'false'].includes(process.env['CI'] ?? '');

function missing(): string | null {
  const podman = podmanMissing();
  if (podman) return podman;
  if (process.getuid?.() !== 0) return 'podman storage needs root';
  if (!fs.existsSync(baseTarball)) return baseMissing;
  return null;
}
const why = missing();
const mustRun = isCi && why === baseMissing;
const skipped = why !== null && !mustRun;

let work: string;
let globalArgs: string[];
let buildSeconds: number;
let httpsPort: number;
let baseUrl: string;

const podman = async (args: readonly string[], timeoutMs = 60_000) =>
  (await run('podman', [...globalArgs, ...args], { timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 })).stdout;

/** Within the sandbox's own limits (podman's defaults may be above them). */
const ulimits = ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];

/** Starts a hub container on the state volume, on loopback ports of this machine. */
async function startHub(name: string): Promise<void> {
  await podman([
    'run',
    '--detach',
    '--name',
    name,
    '--network',
    'host',
    ...ulimits,
    '--env',
    'SVC_HOST=127.0.0.1',
    '--env',
    `SVC_HTTPS_PORT=${String(httpsPort)}`,
    '--env',
    `SVC_HTTP_PORT=${String(await freePort())}`,
    '--env',
    'SVC_BCRYPT_COST=4',
    '--volume',
    'svc-e2e-state:/var/lib/svc-hub',
    image,
  ]);
}

/** GET over HTTPS verified against the hub's CA. */
function get(urlPath: string, ca: string): Promise<{ status: number; body: string; type: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(urlPath, baseUrl), { ca, agent: false, timeout: 10_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body, type: String(res.headers['content-type']) });
      });
    });
    req.on('timeout', () => req.destroy(new Error('no answer')));
    req.on('error', reject);
    req.end();
  });
}

async function waitReady(name: string): Promise<HubTrust> {
  return waitFor(
    `the hub in container ${name} ready`,
    async () => {
      const trust = await fetchHubTrust(baseUrl).catch(() => null);
      if (!trust) return undefined;
      const ready = await get('/readyz', trust.caPem);
      return ready.status === 200 ? trust : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  ).catch(async (error: unknown) => {
    const logs = await podman(['logs', name]).catch(() => '');
    throw new Error(`${(error as Error).message}\ncontainer log:\n${logs.slice(-3000)}`);
  });
}

describe.skipIf(skipped)(`the container image${skipped ? ` (skipped: ${why})` : ''}`, () => {
  beforeAll(async () => {
    if (why) throw new Error(`CI=true: ${why}`);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-image-'));
    globalArgs = [
      '--root',
      path.join(work, 'root'),
      '--runroot',
      path.join(work, 'runroot'),
      '--runtime',
      'runc',
      '--cgroup-manager',
      'cgroupfs',
      '--events-backend',
      'file',
    ];
    const started = Date.now();
    const child = spawn(buildScript, [], {
      cwd: repoRoot,
      env: {
        ...process.env,
        PODMAN: ['podman', ...globalArgs].join(' '),
        SVC_IMAGE: image,
        // Never debootstrap nor fetch Node: everything comes from the prepared base and .node/.
        SVC_OFFLINE: '1',
        SVC_BASE_TARBALL: baseTarball,
        // The test run's global setup has built the hub, the console and the agent.
        SVC_SKIP_BUILD: '1',
        TMPDIR: work,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 540_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    clearTimeout(timer);
    buildSeconds = Math.round((Date.now() - started) / 1000);
    if (code !== 0) throw new Error(`build-image.sh failed (${String(code)}):\n${output.slice(-4000)}`);
    process.stderr.write(`container image built offline in ${String(buildSeconds)} s\n${output}`);
    httpsPort = await freePort();
    baseUrl = `https://127.0.0.1:${String(httpsPort)}`;
  }, 600_000);

  afterAll(async () => {
    if (!work) return;
    await podman(['rm', '--all', '--force', '--time', '0']).catch(() => '');
    await podman(['system', 'reset', '--force'], 120_000).catch(() => '');
    fs.rmSync(work, { recursive: true, force: true });
  }, 180_000);

  it('is built on the debootstrap base, with Node 24', async () => {
    const images = (await podman(['images', '--format', '{{.Repository}}:{{.Tag}} {{.Size}}'])).trim();
    expect(images).toContain('localhost/svc-debian-base:bookworm');
    expect(images).toContain(image);
    const version = await podman([
      'run',
      '--rm',
      '--network',
      'none',
      ...ulimits,
      '--entrypoint',
      'node',
      image,
      '--version',
    ]);
    expect(version.trim()).toMatch(/^v24\./);
    expect(buildSeconds).toBeGreaterThan(0);
  });

  it('starts, answers /readyz and serves the console, as its own user', async () => {
    await startHub('svc-e2e-hub');
    const trust = await waitReady('svc-e2e-hub');
    const ready = await get('/readyz', trust.caPem);
    expect({ status: ready.status, body: JSON.parse(ready.body) as unknown }).toEqual({
      status: 200,
      body: { status: 'ready' },
    });
    const consolePage = await get('/', trust.caPem);
    expect(consolePage.status).toBe(200);
    expect(consolePage.type).toContain('text/html');
    expect(consolePage.body).toContain('<!doctype html>');
    expect((await podman(['exec', 'svc-e2e-hub', 'id', '-un'])).trim()).toBe('svc-hub');
    const state = await podman(['exec', 'svc-e2e-hub', 'ls', '-A', '/var/lib/svc-hub']);
    expect(state.trim().split('\n').sort()).toEqual(['ca-key', 'data']);
  }, 90_000);

  it('keeps its state in the volume: a new container on it is the same hub with the same CA', async () => {
    const before = (await fetchHubTrust(baseUrl)).caFingerprint;
    await podman(['stop', '--time', '20', 'svc-e2e-hub'], 60_000);
    await podman(['rm', 'svc-e2e-hub']);
    await startHub('svc-e2e-hub-2');
    const trust = await waitReady('svc-e2e-hub-2');
    expect(trust.caFingerprint).toBe(before);
    expect(new X509Certificate(trust.caPem).ca).toBe(true);
  }, 120_000);
});
