import type { ExpressionBuilder } from 'kysely';
import type { Database, Executor, TerminalSnippetsTable } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';
import type { Owner } from '../../access/session-access.js';

export type SnippetRow = TerminalSnippetsTable;

export interface SnippetFilter {
  /** The caller: its personal snippets are listed with every shared one. */
  owner: Owner | null;
  scope?: 'personal' | 'shared';
}

function filtered(db: Executor, filter: SnippetFilter) {
  const { owner, scope } = filter;
  return db.selectFrom('terminal_snippets').where((eb) => {
    const own =
      owner === null
        ? eb.val(false)
        : eb.and([
            eb('scope', '=', 'personal'),
            eb('owner_type', '=', owner.owner_type),
            eb('owner_id', '=', owner.owner_id),
          ]);
    const shared = eb('scope', '=', 'shared');
    if (scope === 'personal') return own;
    if (scope === 'shared') return shared;
    return eb.or([own, shared]);
  });
}

export async function listSnippets(
  db: Executor,
  filter: SnippetFilter,
  window: Window,
): Promise<{ rows: SnippetRow[]; total: number }> {
  return listPage(filtered(db, filter).selectAll().orderBy('name').orderBy('id'), window);
}

export async function findSnippet(db: Executor, id: string): Promise<SnippetRow | undefined> {
  return db.selectFrom('terminal_snippets').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Snippets an owner wrote, personal and shared. */
export async function countOwnedSnippets(db: Executor, owner: Owner): Promise<number> {
  const row = await db
    .selectFrom('terminal_snippets')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('owner_type', '=', owner.owner_type)
    .where('owner_id', '=', owner.owner_id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertSnippet(db: Executor, row: SnippetRow): Promise<void> {
  await db.insertInto('terminal_snippets').values(row).execute();
}

export async function updateSnippet(
  db: Executor,
  id: string,
  changes: Partial<Omit<SnippetRow, 'id'>>,
): Promise<void> {
  await db.updateTable('terminal_snippets').set(changes).where('id', '=', id).execute();
}

export async function deleteSnippet(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('terminal_snippets').where('id', '=', id).execute();
}

/** An owner's personal snippets (its shared ones stay: others use them). */
export async function deletePersonalSnippets(db: Executor, owner: Owner): Promise<void> {
  await db
    .deleteFrom('terminal_snippets')
    .where('scope', '=', 'personal')
    .where('owner_type', '=', owner.owner_type)
    .where('owner_id', '=', owner.owner_id)
    .execute();
}

/** Rows owned by any of these owners. */
function ownedByAny(owners: readonly Owner[]) {
  return (eb: ExpressionBuilder<Database, 'terminal_snippets'>) =>
    eb.or(owners.map((o) => eb.and([eb('owner_type', '=', o.owner_type), eb('owner_id', '=', o.owner_id)])));
}

/** The personal snippets of these owners go; answers how many. */
export async function deletePersonalSnippetsOfAny(db: Executor, owners: readonly Owner[]): Promise<number> {
  const result = await db
    .deleteFrom('terminal_snippets')
    .where('scope', '=', 'personal')
    .where(ownedByAny(owners))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The shared snippets of these owners, by id and name. */
export async function listSharedSnippetsOfAny(
  db: Executor,
  owners: readonly Owner[],
): Promise<{ id: string; name: string }[]> {
  return db
    .selectFrom('terminal_snippets')
    .select(['id', 'name'])
    .where('scope', '=', 'shared')
    .where(ownedByAny(owners))
    .orderBy('id')
    .execute();
}

/** Gives snippets another owner. */
export async function setSnippetsOwner(
  db: Executor,
  ids: readonly string[],
  owner: Owner,
  at: string,
): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('terminal_snippets')
    .set({ ...owner, updated_at: at })
    .where('id', 'in', ids)
    .execute();
}
