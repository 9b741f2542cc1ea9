import type { Executor, SavedActionsTable } from '../../platform/db/schema.js';

export type SavedActionRow = SavedActionsTable;

export async function insertSavedAction(db: Executor, row: SavedActionRow): Promise<void> {
  await db.insertInto('saved_actions').values(row).execute();
}

export async function findSavedAction(db: Executor, id: string): Promise<SavedActionRow | undefined> {
  return db.selectFrom('saved_actions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every saved action, by name (they are few: people write them). */
export async function listSavedActions(db: Executor): Promise<SavedActionRow[]> {
  return db.selectFrom('saved_actions').selectAll().orderBy('name').orderBy('id').execute();
}

export async function deleteSavedAction(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('saved_actions').where('id', '=', id).execute();
}

export async function updateSavedAction(
  db: Executor,
  id: string,
  changes: Partial<SavedActionRow>,
): Promise<void> {
  await db.updateTable('saved_actions').set(changes).where('id', '=', id).execute();
}

/**
 * Holds the action's row for the rest of the transaction (an update that changes nothing takes its row lock):
 * a delete of it waits for the transaction, or the transaction finds it gone. False when it no longer exists.
 */
export async function holdSavedAction(db: Executor, id: string): Promise<boolean> {
  const result = await db
    .updateTable('saved_actions')
    .set((eb) => ({ id: eb.ref('id') }))
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
