/**
 * Issue 29 (decision 0053): each node lease's epoch, the registration it belongs to. A process that lost its
 * lease (a stall past it) registers again under a new epoch, and every write it makes about what it owns is
 * checked against its lease row of that epoch, so what it wrote before being declared gone cannot land after.
 * Rows of processes from before this migration have epoch 0 (they fence nothing).
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const nodeLeaseEpochsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('cluster_nodes')
      .addColumn('epoch', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('cluster_nodes').dropColumn('epoch').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
