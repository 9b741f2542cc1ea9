/**
 * Issue 33 (decision 0080): an incident's review, what people write about it (summary, cause, follow-ups as
 * JSON), one row per reviewed incident. The timeline is not stored: it is read from alerts and audit.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const incidentReviewsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('incident_reviews')
      .addColumn('incident_id', 'text', (c) => c.primaryKey())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('cause', 'text', (c) => c.notNull())
      .addColumn('follow_ups', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('updated_by', 'text')
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('incident_reviews').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
