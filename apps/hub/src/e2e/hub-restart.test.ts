/**
 * End to end (issue 4, "Done when"): killing and restarting the hub. The hub runs as users start it
 * (`node apps/hub/bin/svc-hub.js`, compiled, SQLite in its data directory, HTTPS with the built-in CA) and the
 * real svc-agent runs as its own process. The hub is killed with SIGKILL (no shutdown code runs) and started
 * again on the same data directory and ports: the agent comes back by itself, and everything committed
 * before the kill is still there.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimOwner } from '@svc/testkit';
import type {
  AuditEvent,
  EnrollmentToken,
  EnrollmentTokenCreated,
  ExecResult,
  Group,
  HubStatus,
  MetricsSeries,
  Whoami,
} from '@svc/protocol';
import {
  dataOf,
  enrollAgent,
  fetchHubTrust,
  freePort,
  HubClient,
  killChildren,
  powerGuard,
  runAgent,
  sleep,
  startHubProcess,
  waitFor,
  waitForHub,
  waitOnline,
  type AgentProcess,
  type Child,
  type HubTrust,
} from './support.js';

let work: string;
let dataDir: string;
let ports: { httpPort: number; httpsPort: number };
let baseUrl: string;
let hub: Child;
let trust: HubTrust;
let ownerKey: string;
let owner: HubClient;
let agent: AgentProcess;
let assetId: string;

/** What was committed before the kill. */
const before: {
  operatorKey?: string;
  operatorKeyId?: string;
  survivorId?: string;
  groupId?: string;
  tokenId?: string;
  auditIds?: string[];
} = {};

async function startHub(): Promise<Child> {
  const child = startHubProcess({ dataDir, ...ports });
  await waitForHub(baseUrl, child);
  return child;
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-restart-'));
  dataDir = path.join(work, 'hub-data');
  ports = { httpPort: await freePort(), httpsPort: await freePort() };
  baseUrl = `https://127.0.0.1:${String(ports.httpsPort)}`;
  hub = await startHub();
  trust = await fetchHubTrust(baseUrl);
  ownerKey = (await claimOwner(baseUrl, dataDir, { ca: trust.caPem })).ownerKey;
  owner = new HubClient(baseUrl, trust.caPem, ownerKey);

  const token = dataOf<EnrollmentTokenCreated>(
    await owner.post('/api/v2/enrollment-tokens', { name: 'restart e2e', max_uses: 1 }),
    201,
  );
  before.tokenId = token.id;
  const configPath = path.join(work, 'agent', 'settings.json');
  const enrolled = await enrollAgent({
    hubUrl: baseUrl,
    token: token.token,
    caFingerprint: trust.caFingerprint,
    configPath,
    hostname: 'restart-agent',
  });
  if (enrolled.code !== 0) throw new Error(`svc-agent enroll failed: ${enrolled.output}`);
  assetId = (JSON.parse(fs.readFileSync(configPath, 'utf8')) as { asset_id: string }).asset_id;
  const guard = powerGuard(work);
  agent = runAgent(configPath, {
    AGENT_COLLECT_INTERVAL: '1s',
    SVC_AGENT_ALLOW_POWER_ACTIONS: 'false',
    PATH: `${guard.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
  });
  try {
    await waitOnline(owner, assetId, 40_000);
  } catch (error) {
    throw new Error(`${(error as Error).message}\nagent output:\n${agent.output()}\nhub:\n${hub.output()}`, {
      cause: error,
    });
  }
}, 120_000);

afterAll(async () => {
  const started = { agent, owner, work } as Partial<{ agent: AgentProcess; owner: HubClient; work: string }>;
  await started.agent?.stop('SIGTERM', 3_000);
  await killChildren();
  started.owner?.close();
  if (started.work) fs.rmSync(started.work, { recursive: true, force: true });
}, 30_000);

describe('hub kill and restart', () => {
  it('commits data through the running hub (keys, assets, groups, exec audited)', async () => {
    const key = dataOf<{ id: string; raw_key: string }>(
      await owner.post('/api/v2/keys', { name: 'survives', role: 'operator', scopes: ['*'] }),
      201,
    );
    before.operatorKey = key.raw_key;
    before.operatorKeyId = key.id;
    const api = owner.withKey(key.raw_key);
    const survivor = dataOf<{ id: string }>(
      await api.post('/api/v2/assets', {
        name: 'survivor',
        mac_address: '02:00:00:00:00:aa',
        ip_addresses: ['198.51.100.20'],
        tags: ['keep'],
      }),
      201,
    );
    before.survivorId = survivor.id;
    const group = dataOf<Group>(
      await api.post('/api/v2/groups', { name: 'kept', asset_ids: [assetId, survivor.id] }),
      201,
    );
    before.groupId = group.id;
    const ran = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, { command: 'echo before-kill' }),
    );
    expect(ran.stdout).toBe('before-kill\n');
    const audit = dataOf<AuditEvent[]>(await owner.get('/api/v2/audit/events?per_page=500'));
    before.auditIds = audit.map((e) => e.id);
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['api_key.created', 'asset.created', 'agent.enrolled', 'exec.run']),
    );
    api.close();
  });

  it('after SIGKILL and a restart on the same data, the agent reconnects by itself and nothing committed is lost', async () => {
    owner.close();
    hub.process.kill('SIGKILL');
    const exit = await hub.exited;
    expect(exit.signal).toBe('SIGKILL');
    // The agent outlives its hub and keeps trying.
    expect(agent.process.exitCode).toBeNull();

    const killedAt = Date.now();
    // An outage of a few collect intervals (1 s), however fast the hub starts again: samples the agent takes
    // in it must be kept and delivered after the reconnect (checked below).
    await sleep(3_000);
    hub = await startHub();
    const upAt = Date.now();
    const again = await fetchHubTrust(baseUrl);
    // Same CA: the agent's saved trust still holds.
    expect(again.caFingerprint).toBe(trust.caFingerprint);
    owner = new HubClient(baseUrl, again.caPem, ownerKey);

    // No agent is online at start-up; this one comes back by itself (backoff caps at 60 s).
    try {
      await waitOnline(owner, assetId, 75_000);
    } catch (error) {
      throw new Error(`${(error as Error).message}\nagent output:\n${agent.output()}`, { cause: error });
    }
    expect(Date.now() - killedAt).toBeLessThan(90_000);
    expect(agent.output()).toMatch(/reconnecting/);

    const api = owner.withKey(before.operatorKey ?? '');
    const whoami = dataOf<Whoami>(await api.get('/api/v2/whoami'));
    expect(whoami).toMatchObject({ key_id: before.operatorKeyId, key_name: 'survives', role: 'operator' });

    const survivor = dataOf<{
      name: string;
      mac_address: string | null;
      tags: string[];
      ip_addresses: string[];
    }>(await api.get(`/api/v2/assets/${before.survivorId ?? ''}`));
    expect(survivor).toMatchObject({
      name: 'survivor',
      mac_address: '02:00:00:00:00:aa',
      tags: ['keep'],
      ip_addresses: ['198.51.100.20'],
    });
    const group = dataOf<Group>(await api.get(`/api/v2/groups/${before.groupId ?? ''}`));
    expect([...group.asset_ids].sort()).toEqual([assetId, before.survivorId].sort());
    const tokens = dataOf<EnrollmentToken[]>(await owner.get('/api/v2/enrollment-tokens'));
    expect(tokens.find((tk) => tk.id === before.tokenId)).toMatchObject({ uses: 1, max_uses: 1 });

    const audit = dataOf<AuditEvent[]>(await owner.get('/api/v2/audit/events?per_page=500'));
    const ids = new Set(audit.map((e) => e.id));
    expect((before.auditIds ?? []).filter((id) => !ids.has(id))).toEqual([]);
    expect(before.auditIds?.length).toBeGreaterThan(3);
    const exec = audit.find((e) => e.action === 'exec.run' && e.asset_id === assetId);
    expect(exec?.detail).toMatchObject({ command: 'echo before-kill' });

    // And the agent works through the new hub process.
    const ran = dataOf<ExecResult>(
      await api.post(`/api/v2/assets/${assetId}/exec`, { command: 'echo after-restart' }),
    );
    expect(ran).toMatchObject({ status: 'ok', stdout: 'after-restart\n' });
    // Samples the agent took while the hub was away were kept and delivered after the reconnect.
    const outage = `from=${encodeURIComponent(new Date(killedAt + 500).toISOString())}&to=${encodeURIComponent(new Date(upAt).toISOString())}`;
    const buffered = await waitFor(
      'metric samples from the outage',
      async () => {
        const series = dataOf<MetricsSeries>(await api.get(`/api/v2/assets/${assetId}/metrics?${outage}`));
        return series.samples.length > 0 ? series.samples : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 500 },
    );
    for (const sample of buffered) {
      expect(Date.parse(sample.ts)).toBeGreaterThanOrEqual(killedAt);
      expect(Date.parse(sample.ts)).toBeLessThanOrEqual(upAt);
    }

    const status = dataOf<HubStatus>(await owner.get('/api/v2/hub/status'));
    expect(status.agents_connected).toBe(1);
    api.close();
  }, 150_000);
});
