/**
 * The node registry on SQLite always and on the real PostgreSQL when SVC_TEST_DATABASE_URL is set: leases,
 * expiry with a fake clock, and each gone node reported once when two processes race to find it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgSchema } from '@svc/testkit';
import { ManualClock } from '../clock.js';
import { silentLogger } from '../logger.js';
import { openDatabase, type HubDatabase } from '../db/database.js';
import { migrations } from '../db/migrations.js';
import { createMemoryClusterNetwork } from './cluster-bus.js';
import { createDbNodeRegistry, type DbNodeRegistry } from './db-node-registry.js';

const leaseMs = 600_000;
const renewMs = 300_000;

interface Store {
  database: HubDatabase;
  dispose(): Promise<void>;
}

async function sqliteStore(): Promise<Store> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-nodes-'));
  const database = await openDatabase({ databaseUrl: null, dataDir });
  return {
    database,
    async dispose() {
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function postgresStore(url: string): Promise<Store> {
  const schema = await createPgSchema(url);
  const database = await openDatabase({ databaseUrl: url, dataDir: os.tmpdir(), pgSchema: schema.schema });
  return {
    database,
    async dispose() {
      await database.close();
      await schema.drop();
    },
  };
}

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;
const targets: { name: string; open: () => Promise<Store> }[] = [
  { name: 'sqlite', open: sqliteStore },
  ...(postgresUrl ? [{ name: 'postgres', open: () => postgresStore(postgresUrl) }] : []),
];

describe.each(targets)('the node registry on $name', ({ open }) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function cluster(count: number) {
    const store = await open();
    cleanups.push(() => store.dispose());
    const clock = new ManualClock(new Date('2026-11-26T06:00:00.000Z'));
    const network = createMemoryClusterNetwork();
    const gone: { by: string; node: string }[] = [];
    const nodes: DbNodeRegistry[] = [];
    for (let i = 0; i < count; i++) {
      const bus = network.join(`node_${i}`);
      const registry = createDbNodeRegistry({
        db: store.database.db,
        clock,
        nodeId: bus.nodeId,
        logger: silentLogger,
        leaseMs,
        renewMs,
        bus,
      });
      registry.onNodeGone((node) => {
        gone.push({ by: registry.nodeId, node });
      });
      await registry.start();
      cleanups.push(() => registry.close());
      nodes.push(registry);
    }
    return { store, clock, nodes, gone };
  }

  it('sees the others live, and a node whose lease ran out gone, reported once', async () => {
    const { clock, nodes, gone } = await cluster(3);
    const [a, b, c] = nodes as [DbNodeRegistry, DbNodeRegistry, DbNodeRegistry];
    await a.renewNow();
    expect([...a.liveNodes()].sort()).toEqual(['node_0', 'node_1', 'node_2']);

    // c stops renewing (its process died); a and b go on.
    clock.advance(leaseMs / 2);
    await a.renewNow();
    await b.renewNow();
    clock.advance(leaseMs / 2 + 1);
    await a.renewNow();
    await b.renewNow();
    expect(gone).toEqual([{ by: 'node_0', node: 'node_2' }]);
    expect(a.isLive('node_2')).toBe(false);
    expect(b.isLive('node_2')).toBe(false);
    expect(a.isLive('node_1')).toBe(true);

    // c was only paused: at its next renewal it registers again, as a node the others see live.
    await c.renewNow();
    await a.renewNow();
    expect(a.isLive('node_2')).toBe(true);
  });

  it('reports a node that left cleanly once, at once over the bus', async () => {
    const { nodes, gone } = await cluster(3);
    const [a, b, c] = nodes as [DbNodeRegistry, DbNodeRegistry, DbNodeRegistry];
    await c.close();
    // The bus tells the others, which renew at once; the test waits for those renewals.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await a.renewNow();
    await b.renewNow();
    expect(gone.map((g) => g.node)).toEqual(['node_2']);
    expect(a.isLive('node_2')).toBe(false);
    expect(b.isLive('node_2')).toBe(false);
  });

  it('reports each expired node once when two processes renew at the same moment', async () => {
    const { store, clock, nodes, gone } = await cluster(2);
    const [a, b] = nodes as [DbNodeRegistry, DbNodeRegistry];
    const dead = Array.from({ length: 8 }, (_, i) => `node_dead${i}`);
    await store.database.db
      .insertInto('cluster_nodes')
      .values(
        dead.map((node) => ({
          node_id: node,
          host_name: 'gone',
          pid: 1,
          started_at: clock.now().toISOString(),
          lease_until: new Date(clock.now().getTime() - 1).toISOString(),
        })),
      )
      .execute();
    for (let round = 0; round < 3; round++) await Promise.all([a.renewNow(), b.renewNow()]);
    expect(gone.map((g) => g.node).sort()).toEqual(dead);
    const left = await store.database.db.selectFrom('cluster_nodes').select('node_id').execute();
    expect(left.map((r) => r.node_id).sort()).toEqual(['node_0', 'node_1']);
  });
});

describe.runIf(postgresUrl)('migrations from several processes at once', () => {
  it('run once when three processes open a fresh schema together', async () => {
    const url = postgresUrl ?? '';
    const schema = await createPgSchema(url);
    try {
      const opened = await Promise.all(
        [0, 1, 2].map(() =>
          openDatabase({ databaseUrl: url, dataDir: os.tmpdir(), pgSchema: schema.schema }),
        ),
      );
      try {
        const [first] = opened as [HubDatabase];
        const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(first.db);
        expect(applied.rows.map((r) => r.name).sort()).toEqual(Object.keys(migrations).sort());
        await expect(first.db.selectFrom('cluster_nodes').select('node_id').execute()).resolves.toEqual([]);
      } finally {
        await Promise.all(opened.map((d) => d.close()));
      }
    } finally {
      await schema.drop();
    }
  });
});
