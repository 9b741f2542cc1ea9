/**
 * End to end (issue 29, decision 0055): a built hub process started on the cluster's PostgreSQL database
 * without the copied CA refuses to start. It exits non-zero well within 30 s, before its /readyz ever answers
 * 200, and its output names both fingerprints and which files to copy; the running process is unaffected.
 * Started again with the CA copied, it joins.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHubCluster, tlsRequest, type HubCluster } from '@svc/testkit';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let cluster: HubCluster;

beforeAll(async () => {
  cluster = await startHubCluster({ size: 2, postgresUrl });
}, 180_000);

afterAll(async () => {
  await cluster.close();
}, 60_000);

describe('a hub process without the cluster CA', () => {
  it('refuses to start, says how to copy the CA, and starts once it is copied', async () => {
    await cluster.stop(1);
    const refused = await cluster.startWithoutCa(1, 30_000);
    expect(refused.code).not.toBe(0);
    expect(refused.code).not.toBeNull();
    expect(refused.ms).toBeLessThan(30_000);
    expect(refused.everReady).toBe(false);
    expect(refused.output).toContain('svc hub: TLS: refusing to start a second CA');
    expect(refused.output).toContain(cluster.caFingerprint);
    expect(refused.output).toContain('copy');
    expect(refused.output).toContain(cluster.caKeyDir);
    expect(refused.output).toMatch(/"level":50/);

    const first = await tlsRequest(`${cluster.url(0)}/readyz`, { method: 'GET', ca: cluster.caPem });
    expect(first.status).toBe(200);
    // start() copies the CA certificate, and the process uses the shared CA key directory again.
    await cluster.start(1);
    const second = await tlsRequest(`${cluster.url(1)}/readyz`, { method: 'GET', ca: cluster.caPem });
    expect(second.status).toBe(200);
  }, 120_000);
});
