/**
 * Issue 19, sessions across hub processes (decision 0043): the node id of the process that owns each live
 * terminal session. A starting process ends only the sessions of nodes that are gone; the survivor told of a
 * node's departure ends that node's; an attach on another process is relayed to the owner. Null on rows
 * written before this migration.
 */
import type { Kysely, Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const sessionNodeMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('remote_sessions').addColumn('node_id', 'text').execute();
    await db.schema
      .createIndex('remote_sessions_state_node_idx')
      .on('remote_sessions')
      .columns(['state', 'node_id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('remote_sessions_state_node_idx').execute();
    await db.schema.alterTable('remote_sessions').dropColumn('node_id').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
