/**
 * Remote sessions and their recordings (issue 16, decision 0028): a record per terminal or desktop session
 * (live ones are marked ended when the hub starts again), a recording per recorded session, and its
 * asciicast v2 text in chunks flushed about every second (a crash loses at most that).
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const remoteSessionsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('remote_sessions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('owner_type', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('cols', 'integer', (c) => c.notNull())
      .addColumn('rows', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_activity_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('end_reason', 'text')
      .addColumn('exit_code', 'integer')
      .addColumn('recording_id', 'text')
      .execute();
    await db.schema
      .createIndex('remote_sessions_owner_idx')
      .on('remote_sessions')
      .columns(['owner_type', 'owner_id', 'created_at'])
      .execute();
    await db.schema
      .createIndex('remote_sessions_state_idx')
      .on('remote_sessions')
      .columns(['state'])
      .execute();

    await db.schema
      .createTable('session_recordings')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('owner_type', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('size_bytes', 'integer', (c) => c.notNull())
      .addColumn('truncated', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .execute();
    await db.schema
      .createIndex('session_recordings_created_idx')
      .on('session_recordings')
      .columns(['created_at'])
      .execute();

    await db.schema
      .createTable('session_recording_chunks')
      .addColumn('recording_id', 'text', (c) => c.notNull())
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('data', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('session_recording_chunks_pk', ['recording_id', 'seq'])
      .execute();
  },
};
