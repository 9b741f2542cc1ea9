import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '@svc/testkit';

/**
 * A loopback TCP proxy in front of PostgreSQL that the test can break: broken, it cuts every open connection
 * and every new one, as a database host that went away would.
 */
async function startBreakableProxy(target: URL) {
  const sockets = new Set<net.Socket>();
  let broken = false;
  const server = net.createServer((client) => {
    if (broken) {
      client.destroy();
      return;
    }
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    break() {
      broken = true;
      for (const s of sockets) s.destroy();
    },
    heal() {
      broken = false;
    },
    close: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

let hub: TestHub | null = null;
afterEach(async () => {
  await hub?.close();
  hub = null;
});

async function probe(t: TestHub, path: string, key: string | null = null) {
  const res = await t.request('GET', path, { key });
  return { status: res.status, body: res.json, cache: res.headers['cache-control'] };
}

describe('GET /healthz and /readyz', () => {
  it('answer without a credential, in one word, and are never cached', async () => {
    hub = await startTestHub();

    expect(await probe(hub, '/healthz')).toEqual({
      status: 200,
      body: { status: 'alive' },
      cache: 'no-store',
    });
    expect(await probe(hub, '/readyz')).toEqual({
      status: 200,
      body: { status: 'ready' },
      cache: 'no-store',
    });
    // A credential changes nothing, and nothing about the hub (version, counts) is in the answer.
    expect(await probe(hub, '/readyz', hub.ownerKey)).toEqual(await probe(hub, '/readyz'));
  });

  it('/readyz says "migrations" when the schema is not the one this hub runs, and recovers', async () => {
    hub = await startTestHub();
    const { db } = hub.hub.database;
    await db
      .insertInto('kysely_migration' as never)
      .values({ name: '9999_from_a_newer_hub', timestamp: 'x' })
      .execute();

    expect(await probe(hub, '/readyz')).toMatchObject({
      status: 503,
      body: { status: 'unready', reason: 'migrations' },
    });
    expect((await probe(hub, '/healthz')).status).toBe(200);

    await db
      .deleteFrom('kysely_migration' as never)
      .where('name' as never, '=', '9999_from_a_newer_hub' as never)
      .execute();
    expect((await probe(hub, '/readyz')).status).toBe(200);
  });

  it('/readyz says "stopping" once a stop began, while every other request is served as before', async () => {
    hub = await startTestHub();
    hub.hub.markStopping();

    expect(await probe(hub, '/readyz')).toMatchObject({
      status: 503,
      body: { status: 'unready', reason: 'stopping' },
    });
    expect((await probe(hub, '/healthz')).status).toBe(200);
    expect((await hub.request('GET', '/api/v2/whoami')).status).toBe(200);
  });

  it('/readyz says "database" when the SQLite database is closed under it', async () => {
    hub = await startTestHub();
    await hub.hub.database.close();

    expect(await probe(hub, '/readyz')).toMatchObject({
      status: 503,
      body: { status: 'unready', reason: 'database' },
    });
    expect((await probe(hub, '/healthz')).status).toBe(200);
  });

  const pgUrl = process.env.SVC_TEST_DATABASE_URL;
  it.skipIf(!pgUrl)(
    '/readyz says "database" while PostgreSQL is unreachable and "ready" once it is back',
    async () => {
      const proxy = await startBreakableProxy(new URL(pgUrl ?? ''));
      try {
        hub = await startTestHub({ postgresUrl: proxy.url });
        expect((await probe(hub, '/readyz')).status).toBe(200);

        proxy.break();
        expect(await probe(hub, '/readyz')).toMatchObject({
          status: 503,
          body: { status: 'unready', reason: 'database' },
        });
        expect((await probe(hub, '/healthz')).status).toBe(200);

        proxy.heal();
        expect((await probe(hub, '/readyz')).body).toEqual({ status: 'ready' });
      } finally {
        await hub?.close();
        hub = null;
        await proxy.close();
      }
    },
  );
});
