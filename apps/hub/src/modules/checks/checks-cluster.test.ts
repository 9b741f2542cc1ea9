/**
 * A check run from an agent that another hub process holds (decision 0084): the agent is connected to hub A,
 * the check is made and run through hub B, whose gateway carries check.run to A. Runs where PostgreSQL is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentChannelPath,
  type AgentRequestPayload,
  type ServiceCheck,
  type ServiceCheckResult,
} from '@svc/protocol';
import { FakeAgent, provisionAgents } from '@svc/testkit';
import { startMemoryCluster, type MemoryCluster } from '../../testing/memory-cluster.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

describe.skipIf(!postgresUrl)('a check run from an agent held by another hub process', () => {
  let cluster: MemoryCluster | undefined;
  let agent: FakeAgent | undefined;

  afterEach(async () => {
    agent?.close();
    await cluster?.close();
  });

  it('goes through the process that holds the agent, capability read from there', async () => {
    cluster = await startMemoryCluster(postgresUrl ?? '');
    const a = await cluster.startHub('a');
    const b = await cluster.startHub('b');
    const [identity] = await provisionAgents(a.hub, 1, 'chkc');
    if (!identity) throw new Error('no agent');
    const asked: AgentRequestPayload<'check.run'>[] = [];
    agent = new FakeAgent({
      url: `${cluster.baseOf(a)}${agentChannelPath}`,
      credential: identity.credential,
      hello: { capabilities: ['exec', 'checks'] },
      handlers: {
        'check.run': (payload) => {
          asked.push(payload);
          return { ok: true, latency_ms: 7, status_code: null, error: null, cert_expires_at: null };
        },
      },
    });
    await agent.start();
    await expect.poll(() => b.hub.gateway.isConnected(identity.assetId)).toBe(true);
    // B knows the agent's hello (its capabilities) from A.
    expect(b.hub.gateway.session(identity.assetId)?.hello.capabilities).toContain('checks');

    const created = await b.request('POST', '/api/v2/checks', {
      body: { name: 'lan db', kind: 'tcp', target: '10.0.0.9:5432', run_from_asset_id: identity.assetId },
    });
    expect(created.status, created.text).toBe(201);
    const check = created.json.data as ServiceCheck;
    const run = await b.request('POST', `/api/v2/checks/${check.id}/run`);
    expect(run.status, run.text).toBe(200);
    expect(run.json.data as ServiceCheckResult).toMatchObject({ ran: true, ok: true, latency_ms: 7 });
    expect(asked.map((p) => p.target)).toEqual(['10.0.0.9:5432']);
  });
});
