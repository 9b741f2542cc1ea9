import type { Executor, IncidentReviewsTable } from '../../platform/db/schema.js';

export type IncidentReviewRow = IncidentReviewsTable;

export async function findReview(db: Executor, incidentId: string): Promise<IncidentReviewRow | undefined> {
  return db
    .selectFrom('incident_reviews')
    .selectAll()
    .where('incident_id', '=', incidentId)
    .executeTakeFirst();
}

/** Writes the whole row: inserted the first time, replaced after. */
export async function saveReview(db: Executor, row: IncidentReviewRow): Promise<void> {
  const { incident_id: _id, ...changes } = row;
  await db
    .insertInto('incident_reviews')
    .values(row)
    .onConflict((oc) => oc.column('incident_id').doUpdateSet(changes))
    .execute();
}
