/**
 * The private PostgreSQL a test restarts: it serves queries, a restart ends open sessions the way a real one
 * does (57P01), and it serves again on the same port with the data kept.
 */
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPostgresServer, type OwnPostgresServer } from './postgres-server.js';

let server: OwnPostgresServer;

beforeAll(async () => {
  server = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  await server.close();
});

it('restarts on the same port, ends open sessions with admin_shutdown and keeps the data', async () => {
  const client = new pg.Client({ connectionString: server.url });
  client.on('error', () => undefined);
  await client.connect();
  await client.query('create table kept (n int); insert into kept values (7)');
  await server.stop();
  await expect(client.query('select 1')).rejects.toThrow();
  await server.start();
  const again = new pg.Client({ connectionString: server.url });
  await again.connect();
  try {
    const { rows } = await again.query<{ n: number }>('select n from kept');
    expect(rows).toEqual([{ n: 7 }]);
  } finally {
    await again.end();
    await client.end().catch(() => undefined);
  }
}, 60_000);
