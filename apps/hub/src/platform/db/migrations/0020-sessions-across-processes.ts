/**
 * Issue 19, sessions across hub processes (decision 0043). `remote_sessions.node_id`: the process that owns
 * each live terminal session (null on older rows); a starting process ends only the sessions of nodes that
 * are gone, the survivor told of a node's departure ends that node's, and an attach on another process is
 * relayed to the owner. `desktop_recording_chunks`: desktop recordings are stored in the database (base64
 * chunks, in order), so every process reads them and they outlive the process that recorded them; before,
 * they were files in that process's data directory (still read when present). `desktop_sessions`: which
 * node holds each desktop session (they live in that process's memory), so another process can route an
 * attach or a close to it.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const sessionsAcrossProcessesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('remote_sessions').addColumn('node_id', 'text').execute();
    await db.schema
      .createIndex('remote_sessions_state_node_idx')
      .on('remote_sessions')
      .columns(['state', 'node_id'])
      .execute();
    await db.schema
      .createTable('desktop_recording_chunks')
      .addColumn('recording_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('desktop_recording_chunks_pk', ['recording_id', 'seq'])
      .execute();
    await db.schema
      .createTable('desktop_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('node_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('desktop_sessions_node_idx')
      .on('desktop_sessions')
      .column('node_id')
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('desktop_sessions').execute();
    await db.schema.dropTable('desktop_recording_chunks').execute();
    await db.schema.dropIndex('remote_sessions_state_node_idx').execute();
    await db.schema.alterTable('remote_sessions').dropColumn('node_id').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
