/**
 * Issue 19, several hub processes: each live process's node lease (decision 0038). A row per node, renewed
 * while it runs; a row whose lease ran out is a node that died, removed by the one process whose delete took it.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const clusterNodesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('cluster_nodes')
      .addColumn('node_id', 'text', (c) => c.primaryKey())
      .addColumn('host_name', 'text', (c) => c.notNull())
      .addColumn('pid', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      // ISO 8601 UTC, as every timestamp here: compared as text, in time order.
      .addColumn('lease_until', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('cluster_nodes_lease_idx')
      .on('cluster_nodes')
      .columns(['lease_until'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('cluster_nodes').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
