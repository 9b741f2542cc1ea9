/**
 * Issue 17, the mobile companion: stored answers of requests sent with an `Idempotency-Key` (the offline action
 * queue's replays run at most once), Web Push subscriptions per device with their routing, WebAuthn
 * credentials of device owners, and the opt-in client telemetry (decisions 0031–0033).
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const mobileMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('idempotency_records')
      .addColumn('credential', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('route', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      // Null while the first request runs; the success envelope's data (JSON) once it has answered.
      .addColumn('response', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_records_pk', ['credential', 'key'])
      .execute();
    await db.schema
      .createIndex('idempotency_records_created_idx')
      .on('idempotency_records')
      .columns(['created_at'])
      .execute();
    await db.schema
      .createTable('push_subscriptions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull().unique())
      .addColumn('p256dh', 'text', (c) => c.notNull())
      .addColumn('auth', 'text', (c) => c.notNull())
      .addColumn('min_severity', 'text', (c) => c.notNull())
      // JSON QuietHours or null.
      .addColumn('quiet_hours', 'text')
      .addColumn('digest_window_s', 'integer', (c) => c.notNull())
      .addColumn('sent_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('failed_count', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('push_subscriptions_user_idx')
      .on('push_subscriptions')
      .columns(['user_id'])
      .execute();
    await db.schema
      .createTable('webauthn_credentials')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('credential_id', 'text', (c) => c.notNull().unique())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('counter', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .execute();
    await db.schema
      .createIndex('webauthn_credentials_user_idx')
      .on('webauthn_credentials')
      .columns(['user_id'])
      .execute();
    await db.schema
      .createTable('mobile_telemetry')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('device_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      // JSON, bounded by the contract.
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('ts', 'text', (c) => c.notNull())
      .addColumn('received_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('mobile_telemetry_received_idx')
      .on('mobile_telemetry')
      .columns(['received_at'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('mobile_telemetry').execute();
    await db.schema.dropTable('webauthn_credentials').execute();
    await db.schema.dropTable('push_subscriptions').execute();
    await db.schema.dropTable('idempotency_records').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
