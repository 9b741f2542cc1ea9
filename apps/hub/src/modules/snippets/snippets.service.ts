/**
 * Terminal snippets (decision 0091). Who sees one: its owner when it is personal; every caller with
 * terminal rights when it is shared (the route keeps viewers out). Who changes or deletes one: its owner, or
 * an admin when it is shared; only the owner moves it between personal and shared. A personal snippet of
 * someone else is not found, for admins too: it is that person's notebook. The text is never audited (it may
 * hold what people type into shells), only its name, scope and length.
 */
import {
  newId,
  snippetLimits,
  type Snippet,
  type SnippetCreate,
  type SnippetScope,
  type SnippetUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { isAdmin, type ActionContext, type Principal } from '../../access/principal.js';
import { ownerOf, ownersOfUser, sameOwner, type Owner } from '../../access/session-access.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import type { AuditService } from '../audit/audit.service.js';
import type { UserDataHolder } from '../users/users.service.js';
import {
  countOwnedSnippets,
  deletePersonalSnippets,
  deletePersonalSnippetsOfAny,
  deleteSnippet,
  findSnippet,
  insertSnippet,
  listSharedSnippetsOfAny,
  listSnippets,
  setSnippetsOwner,
  updateSnippet,
  type SnippetRow,
} from './snippets.repository.js';

/**
 * A deleted user's personal snippets, and their keys', go with them; their shared ones stay for the others,
 * handed to the heir when the delete names one, else kept under the deleted author's id (decision 0087).
 */
export interface SnippetService extends UserDataHolder {
  list(principal: Principal, page: PageRequest, scope?: SnippetScope): Promise<Page<Snippet>>;
  create(ctx: ActionContext, input: SnippetCreate): Promise<Snippet>;
  update(ctx: ActionContext, id: string, input: SnippetUpdate): Promise<Snippet>;
  remove(ctx: ActionContext, id: string): Promise<Snippet>;
  /** Removes the personal snippets of an owner that is gone (a deleted API key). */
  forgetOwner(owner: Owner): Promise<void>;
}

function isOwn(owner: Owner | null, row: SnippetRow): boolean {
  return owner !== null && sameOwner(owner, row);
}

function mayEdit(principal: Principal, row: SnippetRow): boolean {
  return isOwn(ownerOf(principal), row) || (row.scope === 'shared' && isAdmin(principal));
}

function presentSnippet(row: SnippetRow, principal: Principal): Snippet {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    text: row.text,
    scope: row.scope === 'shared' ? 'shared' : 'personal',
    owner_type: row.owner_type === 'api_key' ? 'api_key' : 'session',
    owner_id: row.owner_id,
    can_edit: mayEdit(principal, row),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function requireOwner(principal: Principal): Owner {
  const owner = ownerOf(principal);
  if (!owner) throw new HubError('forbidden', 'Snippets need a user or an API key as their owner.');
  return owner;
}

export function createSnippetService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
}): SnippetService {
  const { db, clock, audit } = deps;

  /** The snippet if the caller may change it: 404 when it cannot see it, 403 when it only sees it. */
  async function loadEditable(principal: Principal, id: string): Promise<SnippetRow> {
    const row = await findSnippet(db, id);
    if (!row || (row.scope !== 'shared' && !isOwn(ownerOf(principal), row)))
      throw new HubError('not_found', `no snippet ${id}`);
    if (!mayEdit(principal, row))
      throw new HubError('forbidden', 'Only its author or an admin may change a shared snippet.');
    return row;
  }

  return {
    async list(principal, page, scope) {
      const filter = { owner: ownerOf(principal), ...(scope ? { scope } : {}) };
      const { rows, total } = await listSnippets(db, filter, pageWindow(page));
      return toPage(
        rows.map((row) => presentSnippet(row, principal)),
        total,
        page,
      );
    },

    async create(ctx, input) {
      const owner = requireOwner(ctx.principal);
      const now = clock.now().toISOString();
      const row: SnippetRow = {
        id: newId('snippet'),
        name: input.name,
        description: input.description ?? null,
        text: input.text,
        scope: input.scope ?? 'personal',
        ...owner,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        // The limit is counted in the transaction that writes.
        if ((await countOwnedSnippets(trx, owner)) >= snippetLimits.perOwner)
          throw new HubError(
            'conflict',
            `you already have ${snippetLimits.perOwner} snippets; delete one first`,
          );
        await insertSnippet(trx, row);
        await audit.record(trx, ctx, {
          action: 'snippet.created',
          targetType: 'snippet',
          targetId: row.id,
          detail: { name: row.name, scope: row.scope, length: row.text.length },
        });
      });
      return presentSnippet(row, ctx.principal);
    },

    async update(ctx, id, input) {
      const row = await loadEditable(ctx.principal, id);
      if (input.scope !== undefined && input.scope !== row.scope && !isOwn(ownerOf(ctx.principal), row))
        throw new HubError('forbidden', 'Only its author may make a snippet personal or shared.');
      const changes: Partial<SnippetRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.text !== undefined) changes.text = input.text;
      if (input.description !== undefined) changes.description = input.description;
      if (input.scope !== undefined) changes.scope = input.scope;
      await db.transaction().execute(async (trx) => {
        await updateSnippet(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'snippet.updated',
          targetType: 'snippet',
          targetId: id,
          detail: { fields: Object.keys(input), scope: changes.scope ?? row.scope },
        });
      });
      return presentSnippet({ ...row, ...changes }, ctx.principal);
    },

    async remove(ctx, id) {
      const row = await loadEditable(ctx.principal, id);
      await db.transaction().execute(async (trx) => {
        await deleteSnippet(trx, id);
        await audit.record(trx, ctx, {
          action: 'snippet.deleted',
          targetType: 'snippet',
          targetId: id,
          detail: { name: row.name, scope: row.scope },
        });
      });
      return presentSnippet(row, ctx.principal);
    },

    forgetOwner: (owner) => deletePersonalSnippets(db, owner),

    async forgetUser(trx, ctx, user) {
      const owners = ownersOfUser(user.userId, user.keyIds);
      const deleted = await deletePersonalSnippetsOfAny(trx, owners);
      if (user.heirId === null) return { snippets_deleted: deleted, shared_snippets_reassigned: 0 };
      const shared = await listSharedSnippetsOfAny(trx, owners);
      await setSnippetsOwner(
        trx,
        shared.map((s) => s.id),
        { owner_type: 'session', owner_id: user.heirId },
        clock.now().toISOString(),
      );
      await audit.recordMany(
        trx,
        ctx,
        shared.map((s) => ({
          action: 'snippet.updated',
          targetType: 'snippet',
          targetId: s.id,
          detail: { fields: ['owner'], name: s.name, user_deleted: user.userId, to: user.heirId },
        })),
      );
      return { snippets_deleted: deleted, shared_snippets_reassigned: shared.length };
    },
  };
}
