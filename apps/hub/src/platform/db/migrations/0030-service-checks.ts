/**
 * Issue 33, service checks (decision 0079): each check with its state (the last run, failures in a row, the
 * certificate's expiry) and `next_run_at`, the run it waits for, which a claim moves on in one UPDATE guarded
 * by the old value; and its results, kept bounded per check. Alert rules of kind `check` say how many failed
 * runs in a row fire (`alert_rules.failures`).
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const serviceChecksMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('service_checks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('asset_id', 'text')
      .addColumn('interval_s', 'integer', (c) => c.notNull())
      .addColumn('timeout_s', 'integer', (c) => c.notNull())
      .addColumn('expected_status', 'text')
      .addColumn('expected_body', 'text')
      .addColumn('tls_verify', 'integer', (c) => c.notNull())
      .addColumn('cert_warn_days', 'integer', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('consecutive_failures', 'integer', (c) => c.notNull())
      .addColumn('last_run_at', 'text')
      .addColumn('last_latency_ms', 'integer')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('cert_expires_at', 'text')
      .addColumn('cert_warned_for', 'text')
      .addColumn('next_run_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('service_checks_next_run_idx')
      .on('service_checks')
      .column('next_run_at')
      .execute();
    await db.schema
      .createTable('service_check_results')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('check_id', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addColumn('ok', 'integer', (c) => c.notNull())
      .addColumn('latency_ms', 'integer')
      .addColumn('status_code', 'integer')
      .addColumn('error', 'text')
      .addColumn('cert_expires_at', 'text')
      .execute();
    await db.schema
      .createIndex('service_check_results_check_at_idx')
      .on('service_check_results')
      .columns(['check_id', 'at'])
      .execute();
    await db.schema.alterTable('alert_rules').addColumn('failures', 'integer').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('alert_rules').dropColumn('failures').execute();
    await db.schema.dropTable('service_check_results').execute();
    await db.schema.dropTable('service_checks').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
