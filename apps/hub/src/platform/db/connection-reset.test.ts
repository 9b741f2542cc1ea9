/**
 * A connection PostgreSQL (or the network to it) resets while a statement is on it: node-postgres rejects that
 * statement with the socket's own error (`read ECONNRESET`, code ECONNRESET), not a SQLSTATE. A request that
 * met it must answer 503 with Retry-After like any other database outage (decision 0054), never 500, and the
 * hub serves again on its own once the connections go through. Real PostgreSQL behind a TCP relay of the
 * test's own that resets each connection on its next bytes from the hub while armed.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '@svc/testkit';

const databaseUrl = process.env.SVC_TEST_DATABASE_URL;

interface ResettingRelay {
  url: string;
  /** While armed, a connection is reset (RST) as soon as the hub sends it anything: its statement is lost. */
  arm(on: boolean): void;
  resets(): number;
  close(): Promise<void>;
}

async function startResettingRelay(target: URL): Promise<ResettingRelay> {
  let armed = false;
  let resets = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const end = () => {
      sockets.delete(client);
      sockets.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (chunk) => {
      if (armed) {
        resets += 1;
        upstream.destroy();
        client.resetAndDestroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => client.write(chunk));
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const url = new URL(target.href);
  url.host = `127.0.0.1:${String(port)}`;
  return {
    url: url.href,
    arm: (on) => {
      armed = on;
    },
    resets: () => resets,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
    },
  };
}

describe.runIf(databaseUrl)('a database connection reset under a statement', () => {
  let relay: ResettingRelay;
  let t: TestHub;

  beforeAll(async () => {
    relay = await startResettingRelay(new URL(databaseUrl ?? ''));
    t = await startTestHub({ postgresUrl: relay.url });
  }, 60_000);

  afterAll(async () => {
    relay.arm(false);
    await t.close();
    await relay.close();
  });

  it('answers 503 with Retry-After, never 500, and serves again once it goes through', async () => {
    const created = await t.request('POST', '/api/v2/groups', { body: { name: 'before the resets' } });
    expect(created.status).toBe(201);

    relay.arm(true);
    // Concurrent reads, so that pooled connections are reset under a statement and new ones under their start.
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => t.request('GET', '/api/v2/groups?per_page=5')),
    );
    expect(relay.resets()).toBeGreaterThan(0);
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(503);
      expect(answer.json).toMatchObject({ error: 'unavailable' });
      expect(answer.headers['retry-after']).toBe('5');
    }

    relay.arm(false);
    const again = await t.request('GET', '/api/v2/groups?per_page=5');
    expect(again.status, again.text).toBe(200);
    expect(again.json.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'before the resets' })]),
    );
  });
});
