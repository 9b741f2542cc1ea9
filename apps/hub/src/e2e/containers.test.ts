/**
 * Containers end to end (issue 15, part 1, "Done when"): a real hub over TLS, the real svc-agent process
 * pointed at a real engine — podman serving the Docker Engine API on a unix socket in a temporary directory
 * (testkit's startPodman) — and three busybox containers: one without a TTY (framed logs, stdout and
 * stderr), one with a TTY (raw logs) that carries a compose project label, and one stopped. Through
 * /api/v2: hosts, list, stop, start, restart, logs, the stack by its label, images, volumes; the agent's
 * `settings test docker` against the same socket; a discovery run through the same agent. Skips, saying
 * why, only where podman is missing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Container,
  ContainerActionResult,
  ContainerHost,
  ContainerImage,
  ContainerLogs,
  ContainerStack,
  ContainerVolume,
  EnrollmentTokenCreated,
} from '@svc/protocol';
import { podmanMissing, startPodman, startTestHub, type PodmanEngine, type TestHub } from '@svc/testkit';
import {
  agentCli,
  dataOf,
  enrollAgent,
  fetchHubTrust,
  HubClient,
  killChildren,
  RealTimeClock,
  runAgent,
  waitFor,
  waitOnline,
  type AgentProcess,
} from './support.js';

const missing = podmanMissing();
if (missing) console.warn(`skipping the podman container tests: ${missing}`);

let work: string;
let engine: PodmanEngine;
let t: TestHub;
let owner: HubClient;
let api: HubClient;
let agent: AgentProcess;
let assetId: string;
const ids: Record<'plain' | 'tty' | 'stopped', string> = { plain: '', tty: '', stopped: '' };

const plainScript = 'trap "exit 0" TERM; echo out-line; echo err-line >&2; while true; do sleep 1; done';
const ttyScript = 'trap "exit 0" TERM; echo tty-line; while true; do sleep 1; done';

beforeAll(async () => {
  if (missing) return;
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-containers-'));
  engine = await startPodman(work);
  ids.plain = await engine.createContainer({ name: 'plain', script: plainScript });
  ids.tty = await engine.createContainer({
    name: 'tty',
    tty: true,
    script: ttyScript,
    labels: { 'com.docker.compose.project': 'demo', 'com.docker.compose.service': 'web' },
  });
  ids.stopped = await engine.createContainer({ name: 'stopped', script: 'echo never', start: false });
  await engine.podman(['volume', 'create', '--label', 'com.docker.compose.project=demo', 'demo-data']);

  t = await startTestHub({
    env: { SVC_TLS_MODE: 'auto' },
    listen: true,
    injectAsHttps: true,
    clock: new RealTimeClock(),
  });
  const hubUrl = `https://127.0.0.1:${String(t.servers?.httpsPort)}`;
  const trust = await fetchHubTrust(hubUrl);
  owner = new HubClient(hubUrl, trust.caPem, t.ownerKey);
  const key = dataOf<{ raw_key: string }>(
    await owner.post('/api/v2/keys', { name: 'containers', role: 'operator', scopes: ['container:*'] }),
    201,
  );
  api = owner.withKey(key.raw_key);
  const token = dataOf<EnrollmentTokenCreated>(
    await owner.post('/api/v2/enrollment-tokens', { name: 'containers agent', max_uses: 1 }),
    201,
  );
  const configPath = path.join(work, 'agent', 'settings.json');
  const enrolled = await enrollAgent({
    hubUrl,
    token: token.token,
    caFingerprint: trust.caFingerprint,
    configPath,
    hostname: 'container-host',
  });
  if (enrolled.code !== 0) throw new Error(`svc-agent enroll failed: ${enrolled.output}`);
  assetId = (JSON.parse(fs.readFileSync(configPath, 'utf8')) as { asset_id: string }).asset_id;
  agent = runAgent(configPath, {
    SVC_CONTAINER_SOCKET: `unix://${engine.socketPath}`,
    SVC_AGENT_ALLOW_POWER_ACTIONS: 'false',
  });
  try {
    await waitOnline(owner, assetId, 40_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nagent output:\n${agent.output()}`, { cause: error });
  }
}, 120_000);

afterAll(async () => {
  const started = { agent, owner, api, t, engine, work } as Partial<{
    agent: AgentProcess;
    owner: HubClient;
    api: HubClient;
    t: TestHub;
    engine: PodmanEngine;
    work: string;
  }>;
  await started.agent?.stop('SIGTERM', 3_000);
  await killChildren();
  started.owner?.close();
  started.api?.close();
  await started.t?.close();
  await started.engine?.close();
  if (started.work) fs.rmSync(started.work, { recursive: true, force: true });
}, 60_000);

async function containers(): Promise<Container[]> {
  return dataOf<Container[]>(await api.get(`/api/v2/container/hosts/${assetId}/containers`));
}

async function stateOf(name: string): Promise<string | undefined> {
  return (await containers()).find((c) => c.name === name)?.state;
}

describe.skipIf(missing !== null)('containers on a real engine (podman) through the agent', () => {
  it('`svc-agent settings test docker` reaches the engine and names its versions', async () => {
    const ok = await agentCli(['settings', 'test', 'docker'], {
      SVC_CONTAINER_SOCKET: engine.socketPath,
    });
    expect(ok.code, ok.output).toBe(0);
    expect(ok.output).toMatch(/OK: container engine at .*podman\.sock: version 4\.\d+\.\d+, API \d+\.\d+/);

    const missingSocket = await agentCli(['settings', 'test', 'docker'], {
      SVC_CONTAINER_SOCKET: path.join(work, 'absent.sock'),
    });
    expect(missingSocket.code).not.toBe(0);
    expect(missingSocket.output).toContain('no socket at');
  });

  it('lists the host among the container hosts', async () => {
    const hosts = dataOf<ContainerHost[]>(await api.get('/api/v2/container/hosts'));
    expect(hosts.map((h) => h.asset_id)).toContain(assetId);
  });

  it('lists containers with state, image, created time, compose labels and compound ids', async () => {
    const list = await containers();
    const byName = new Map(list.map((c) => [c.name, c]));
    expect(byName.get('plain')).toMatchObject({
      id: `${assetId}:${ids.plain}`,
      engine_id: ids.plain,
      state: 'running',
      image: engine.image,
      stack_id: null,
      health: null,
    });
    expect(byName.get('tty')).toMatchObject({
      state: 'running',
      compose_project: 'demo',
      compose_service: 'web',
      stack_id: `${assetId}:demo`,
    });
    expect(byName.get('stopped')?.state).toMatch(/created|exited|configured/);
    expect(Date.parse(byName.get('plain')?.created_at ?? '')).toBeGreaterThan(Date.now() - 3_600_000);
  });

  it('reads the logs of a container without a TTY as stdout and stderr lines', async () => {
    const logs = await waitFor('both log lines', async () => {
      const res = dataOf<ContainerLogs>(
        await api.get(`/api/v2/container/containers/${assetId}:${ids.plain}/logs?tail=50`),
      );
      return res.entries.length >= 2 ? res : undefined;
    });
    expect(logs.tty).toBe(false);
    expect(logs.entries).toEqual(
      expect.arrayContaining([
        { stream: 'stdout', text: 'out-line' },
        { stream: 'stderr', text: 'err-line' },
      ]),
    );
  });

  it('reads the logs of a TTY container raw, without framing or carriage returns', async () => {
    const logs = dataOf<ContainerLogs>(
      await api.get(`/api/v2/container/containers/${assetId}:tty/logs?tail=10`),
    );
    expect(logs.tty).toBe(true);
    expect(logs.entries).toContainEqual({ stream: 'tty', text: 'tty-line' });
  });

  it('stops, starts and restarts a container; an action already done is success', async () => {
    const base = `/api/v2/container/containers/${assetId}:${ids.plain}`;
    const stopped = dataOf<ContainerActionResult>(await api.post(`${base}/stop`, {}));
    expect(stopped).toMatchObject({ id: `${assetId}:${ids.plain}`, action: 'stop', changed: true });
    expect(stopped.state).toMatch(/exited|stopped/);
    expect(await stateOf('plain')).toBe('exited');

    const again = dataOf<ContainerActionResult>(await api.post(`${base}/stop`, {}));
    expect(again.changed).toBe(false);

    const started = dataOf<ContainerActionResult>(await api.post(`${base}/start`, {}));
    expect(started).toMatchObject({ state: 'running', changed: true });
    const already = dataOf<ContainerActionResult>(await api.post(`${base}/start`, {}));
    expect(already.changed).toBe(false);

    const restarted = dataOf<ContainerActionResult>(await api.post(`${base}/restart`, {}));
    expect(restarted).toMatchObject({ state: 'running', changed: true });
    expect(await stateOf('plain')).toBe('running');

    const audit = dataOf<{ action: string; target_id: string }[]>(
      await owner.get(`/api/v2/audit/events?asset_id=${assetId}&per_page=50`),
    );
    expect(audit.map((a) => a.action)).toEqual(
      expect.arrayContaining(['container.stop', 'container.start', 'container.restart']),
    );
  }, 60_000);

  it('finds the stack by its compose label, and refuses one that does not exist', async () => {
    const stack = dataOf<ContainerStack>(await api.get(`/api/v2/container/stacks/${assetId}:demo`));
    expect(stack).toMatchObject({ project: 'demo', total: 1, running: 1, services: ['web'] });
    expect(stack.containers.map((c) => c.name)).toEqual(['tty']);
    const stacks = dataOf<ContainerStack[]>(await api.get(`/api/v2/container/hosts/${assetId}/stacks`));
    expect(stacks.map((s) => s.id)).toEqual([`${assetId}:demo`]);
    const none = await api.get(`/api/v2/container/stacks/${assetId}:nothing`);
    expect(none.status).toBe(404);
  });

  it('answers 404 for an unknown container, from the engine', async () => {
    const res = await api.post(`/api/v2/container/containers/${assetId}:no-such-container/start`, {});
    expect({ status: res.status, error: res.json.error }).toEqual({ status: 404, error: 'not_found' });
  });

  it('discovery through the real agent suggests the containers and what listens on this host', async () => {
    const run = dataOf<{ agents: { answered: number }; found: number }>(
      await owner.post('/api/v2/discovery/run', {}),
    );
    expect(run.agents.answered).toBeGreaterThanOrEqual(1);
    const suggestions = dataOf<{ kind: string; asset_id: string | null; detail: { name?: string } }[]>(
      await owner.get('/api/v2/discovery/suggestions?per_page=500'),
    );
    const mine = suggestions.filter((s) => s.asset_id === assetId);
    expect(mine.filter((s) => s.kind === 'container').map((s) => s.detail.name)).toEqual(
      expect.arrayContaining(['plain', 'tty', 'stopped']),
    );
  });

  it("lists the host's images and volumes", async () => {
    const images = dataOf<ContainerImage[]>(await api.get(`/api/v2/container/hosts/${assetId}/images`));
    expect(images.flatMap((i) => i.tags)).toContain(engine.image);
    expect(images[0]?.size_bytes).toBeGreaterThan(100_000);
    const volumes = dataOf<ContainerVolume[]>(await api.get(`/api/v2/container/hosts/${assetId}/volumes`));
    expect(volumes).toContainEqual(expect.objectContaining({ name: 'demo-data', compose_project: 'demo' }));
  });
});
