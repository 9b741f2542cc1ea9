/**
 * End to end (issue 29, decision 0055): agents fail over. Three built hub processes behind Debian's HAProxy
 * running deploy/haproxy/haproxy.cfg, and two real built agents:
 * - one enrolled through HAProxy (the documented deployment). SIGTERM of the process holding it: the process
 *   drains (HAProxy takes it out), tells its agents to move, and the agent is online on another process within
 *   10 s of the drain's end, its holder node changed, and exec through HAProxy reaches it;
 * - one enrolled with a process's own address and the other two in SVC_HUB_URLS. kill -9 of the process
 *   holding it: it is online on another within 10 s.
 * Which process holds an agent is read from the shared database (assets.agent_node and the node's pid).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrollmentTokenCreated, ExecResult } from '@svc/protocol';
import {
  haproxyBinary,
  startBalancedCluster,
  type AgentHolder,
  type BalancedCluster,
  type HubCluster,
} from '@svc/testkit';
import {
  dataOf,
  enrollAgent,
  HubClient,
  killChildren,
  powerGuard,
  runAgent,
  waitFor,
  type AgentProcess,
} from './support.js';

const haveHaproxy = fs.existsSync(haproxyBinary);
const postgresUrl = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
/** The drain before a stopping process tells its agents to move (HAProxy's checks take it out in about 4 s). */
const drainSeconds = 5;

let started: BalancedCluster | undefined;
let cluster: HubCluster;
let api: HubClient;
const agents: { process: AgentProcess; assetId: string }[] = [];

/** The process holding the agent of `assetId` now (online only), if one does. */
async function holding(assetId: string): Promise<AgentHolder | undefined> {
  return (await cluster.holdersOf(assetId))[0];
}

function heldElsewhere(assetId: string, not: AgentHolder, timeoutMs: number) {
  return waitFor(
    `${assetId} online on another process`,
    async () => {
      const now = await holding(assetId);
      return now && now.index !== not.index && now.node !== not.node ? now : undefined;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

/**
 * Exec through HAProxy once the agent is back: the process HAProxy picks learns that another one now holds the
 * agent from that holder's next view message (flushed every 100 ms, decision 0039), so until then it answers
 * 409 asset_offline, and nothing ran. Any other answer ends the wait.
 */
async function execOnceSeen(assetId: string, command: string): Promise<ExecResult> {
  const res = await waitFor(
    `exec on ${assetId} through HAProxy`,
    async () => {
      const answer = await api.post(`/api/v2/assets/${assetId}/exec`, { command });
      return answer.status === 409 && answer.text.includes('"asset_offline"') ? undefined : answer;
    },
    { timeoutMs: 3_000, intervalMs: 100 },
  );
  return dataOf<ExecResult>(res);
}

async function startAgent(
  n: number,
  hubUrl: string,
  token: string,
  env: Record<string, string>,
): Promise<{ process: AgentProcess; assetId: string }> {
  const configPath = path.join(cluster.workDir, `agent-${String(n)}`, 'settings.json');
  const enrolled = await enrollAgent({
    hubUrl,
    token,
    caFingerprint: cluster.caFingerprint,
    configPath,
    hostname: `failover-agent-${String(n)}`,
  });
  if (enrolled.code !== 0) throw new Error(`svc-agent enroll failed: ${enrolled.output}`);
  const assetId = (JSON.parse(fs.readFileSync(configPath, 'utf8')) as { asset_id: string }).asset_id;
  const guard = powerGuard(cluster.workDir);
  const agentProcess = runAgent(configPath, {
    SVC_AGENT_ALLOW_POWER_ACTIONS: 'false',
    PATH: `${guard.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    ...env,
  });
  const agent = { process: agentProcess, assetId };
  agents.push(agent);
  await waitFor('the agent online', () => holding(assetId), { timeoutMs: 30_000, intervalMs: 200 }).catch(
    (error: unknown) => {
      throw new Error(`${(error as Error).message}\nagent output:\n${agentProcess.output()}`);
    },
  );
  return agent;
}

beforeAll(async () => {
  if (!haveHaproxy) return;
  started = await startBalancedCluster({
    postgresUrl,
    env: { SVC_TRUSTED_PROXIES: '127.0.0.1', SVC_SHUTDOWN_DRAIN_SECONDS: String(drainSeconds) },
  });
  cluster = started.cluster;
  api = new HubClient(started.lb.url, cluster.caPem, cluster.owner.key);
}, 180_000);

afterAll(async () => {
  for (const a of agents) await a.process.stop('SIGTERM', 3_000);
  await killChildren();
  api.close();
  await started?.close();
}, 60_000);

describe.skipIf(!haveHaproxy)('agents fail over', () => {
  it('an agent behind HAProxy moves off a process stopped with SIGTERM, and exec through HAProxy reaches it', async () => {
    const token = dataOf<EnrollmentTokenCreated>(
      await api.post('/api/v2/enrollment-tokens', { name: 'failover', max_uses: 2 }),
      201,
    );
    const agent = await startAgent(0, started?.lb.url ?? '', token.token, {});
    const before = await holding(agent.assetId);
    if (!before) throw new Error('not held');

    const stopped = cluster.stop(before.index, 30_000);
    const sigterm = Date.now();
    // Bound: the drain, then 10 s for the notice, the agent's random delay and its reconnect through HAProxy.
    const after = await heldElsewhere(agent.assetId, before, drainSeconds * 1000 + 10_000);
    const movedMs = Date.now() - sigterm;
    await stopped;
    expect(after.node).not.toBe(before.node);
    expect(movedMs).toBeLessThan(drainSeconds * 1000 + 10_000);
    // It moved because it was told (no error backoff): its log says so.
    expect(agent.process.output()).toContain('the hub is stopping; moving to another');

    const exec = await execOnceSeen(agent.assetId, 'echo moved');
    expect(exec.stdout).toBe('moved\n');
    await cluster.start(before.index);

    // An agent naming the processes in SVC_HUB_URLS: kill -9 of its process, on the next address at once.
    const direct = await startAgent(1, cluster.url(0), token.token, {
      SVC_HUB_URLS: `${cluster.url(1)},${cluster.url(2)}`,
    });
    const held = await holding(direct.assetId);
    if (!held) throw new Error('not held');
    const killed = Date.now();
    await cluster.kill(held.index);
    await heldElsewhere(direct.assetId, held, 10_000);
    expect(Date.now() - killed).toBeLessThan(10_000);
    const again = await execOnceSeen(direct.assetId, 'echo here');
    expect(again.stdout).toBe('here\n');
  }, 150_000);
});
