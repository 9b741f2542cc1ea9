/**
 * A PostgreSQL restart under a running hub process (issue 29, decision 0054), on a PostgreSQL of the test's own
 * (testkit's postgres-server.ts: the shared server on 5432 is never touched), stopped with its fast shutdown as
 * `systemctl restart postgresql` does: open sessions end with 57P01.
 *
 * While it is down the process stays up and says why: `/readyz` 503 `database`, `/healthz` 200, and a request
 * that needs the database answers 503 `unavailable` with Retry-After and a message naming the database, never
 * 500. When PostgreSQL is back the process serves again on its own, and what was written before is there.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Group } from '@svc/protocol';
import {
  postgresBinDir,
  startHubCluster,
  startPostgresServer,
  type HubCluster,
  type OwnPostgresServer,
} from '@svc/testkit';
import { dataOf, HubClient, sleep, waitFor } from './support.js';

const havePostgres = postgresBinDir() !== null;

let postgres: OwnPostgresServer;
let cluster: HubCluster;
let api: HubClient;

describe.runIf(havePostgres)('a PostgreSQL restart under a hub process', () => {
  beforeAll(async () => {
    postgres = await startPostgresServer();
    cluster = await startHubCluster({
      size: 1,
      postgresUrl: postgres.url,
      ownNats: true,
      env: { SVC_RATE_LIMIT_ENABLED: 'false' },
    });
    api = new HubClient(cluster.url(0), cluster.caPem, cluster.owner.key);
  }, 120_000);

  afterAll(async () => {
    api.close();
    // The database is dropped with the server: close() of the cluster cannot reach it when a case failed.
    await postgres.start().catch(() => undefined);
    await cluster.close();
    await postgres.close();
  }, 60_000);

  it('answers 503 while it is down, never exits, and serves again on its own when it is back', async () => {
    const before = dataOf<Group>(await api.post('/api/v2/groups', { name: 'before the restart' }), 201);
    const pid = cluster.nodes[0]?.pid();

    await postgres.stop();

    const readyz = await waitFor('/readyz to say database', async () => {
      const answer = await api.get('/readyz', { key: null });
      return answer.status === 503 ? answer : undefined;
    });
    expect(readyz.json).toMatchObject({ status: 'unready', reason: 'database' });
    expect((await api.get('/healthz', { key: null })).status).toBe(200);

    for (const attempt of [
      () => api.get('/api/v2/assets'),
      () => api.get(`/api/v2/groups/${before.id}`),
      () => api.post('/api/v2/groups', { name: 'during the restart' }),
    ]) {
      const answer = await attempt();
      expect(answer.status, answer.text).toBe(503);
      expect(answer.json).toMatchObject({ error: 'unavailable', status: 503 });
      expect((answer.json as { message: string }).message).toMatch(/database/i);
      expect(answer.headers['retry-after']).toBe('5');
    }
    expect(cluster.nodes[0]?.pid()).toBe(pid);
    // Down longer than every background loop's period (schedules, leases, presence: 5 s at most), each of which
    // meets the database gone at least once; the process is still there after.
    await sleep(7_000);
    expect((await api.get('/healthz', { key: null })).status).toBe(200);
    expect(cluster.nodes[0]?.pid()).toBe(pid);

    const restarted = Date.now();
    await postgres.start();
    await waitFor(
      'the process serving again',
      async () => ((await api.get(`/api/v2/groups/${before.id}`)).status === 200 ? true : undefined),
      { timeoutMs: 20_000, intervalMs: 250 },
    );
    const readyAgain = await api.get('/readyz', { key: null });
    expect(readyAgain.status).toBe(200);
    expect(readyAgain.json).toMatchObject({ status: 'ready' });
    expect(Date.now() - restarted).toBeLessThan(20_000);
    dataOf<Group>(await api.post('/api/v2/groups', { name: 'after the restart' }), 201);
    expect(cluster.nodes[0]?.pid()).toBe(pid);
  }, 90_000);
});
