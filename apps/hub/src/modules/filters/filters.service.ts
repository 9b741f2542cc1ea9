/**
 * Saved filters of the assets list (decision 0096): a name and the list's filter set, one owner's (a console
 * user, or an API key, as sessions are owned). Only its owner sees or changes one; others, admins included,
 * get 404. A deleted user's or key's filters go with them.
 */
import {
  SavedFilterCriteria,
  savedFilterLimits,
  newId,
  type SavedFilter,
  type SavedFilterCreate,
  type SavedFilterUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { Value } from 'typebox/value';
import type { ActionContext, Principal } from '../../access/principal.js';
import { ownerOf, ownersOfUser, sameOwner, type Owner } from '../../access/session-access.js';
import type { Clock } from '../../platform/clock.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import type { AuditService } from '../audit/audit.service.js';
import type { UserDataHolder } from '../users/users.service.js';
import {
  countOwnedAssetFilters,
  deleteAssetFilter,
  deleteAssetFiltersOfAny,
  findAssetFilter,
  findOwnedByName,
  insertAssetFilter,
  listAssetFilters,
  updateAssetFilter,
  type AssetFilterRow,
} from './filters.repository.js';

export interface AssetFilterService extends UserDataHolder {
  list(principal: Principal, page: PageRequest): Promise<Page<SavedFilter>>;
  create(ctx: ActionContext, input: SavedFilterCreate): Promise<SavedFilter>;
  update(ctx: ActionContext, id: string, input: SavedFilterUpdate): Promise<SavedFilter>;
  remove(ctx: ActionContext, id: string): Promise<SavedFilter>;
  /** Removes the filters of an owner that is gone (a deleted API key). */
  forgetOwner(owner: Owner): Promise<void>;
}

/** The stored criteria, read back through their schema: a row that does not match reads as "everything". */
function criteriaOf(text: string): SavedFilterCriteria {
  try {
    const value: unknown = JSON.parse(text);
    return Value.Check(SavedFilterCriteria, value) ? value : {};
  } catch {
    return {};
  }
}

function presentAssetFilter(row: AssetFilterRow): SavedFilter {
  return {
    id: row.id,
    name: row.name,
    criteria: criteriaOf(row.criteria),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function requireOwner(principal: Principal): Owner {
  const owner = ownerOf(principal);
  if (!owner) throw new HubError('forbidden', 'Saved filters need a user or an API key as their owner.');
  return owner;
}

async function refuseTakenName(db: Executor, owner: Owner, name: string, id: string | null): Promise<void> {
  const same = await findOwnedByName(db, owner, name);
  if (same && same.id !== id)
    throw new HubError('conflict', `you already have a saved filter named "${name}"; choose another name`);
}

export function createAssetFilterService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
}): AssetFilterService {
  const { db, clock, audit } = deps;

  /** The caller's own filter; 404 for anyone else's, as for one that does not exist. */
  async function loadOwn(principal: Principal, id: string): Promise<{ row: AssetFilterRow; owner: Owner }> {
    const row = await findAssetFilter(db, id);
    const owner = ownerOf(principal);
    if (!row || owner === null || !sameOwner(owner, row))
      throw new HubError('not_found', `no saved filter ${id}`);
    return { row, owner };
  }

  return {
    async list(principal, page) {
      const owner = ownerOf(principal);
      if (!owner) return toPage([], 0, page);
      const { rows, total } = await listAssetFilters(db, owner, pageWindow(page));
      return toPage(rows.map(presentAssetFilter), total, page);
    },

    async create(ctx, input) {
      const owner = requireOwner(ctx.principal);
      const now = clock.now().toISOString();
      const row: AssetFilterRow = {
        id: newId('assetFilter'),
        name: input.name,
        criteria: JSON.stringify(input.criteria),
        ...owner,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        if ((await countOwnedAssetFilters(trx, owner)) >= savedFilterLimits.perOwner)
          throw new HubError(
            'conflict',
            `you already have ${savedFilterLimits.perOwner} saved filters; delete one first`,
          );
        await refuseTakenName(trx, owner, input.name, null);
        await insertAssetFilter(trx, row);
        await audit.record(trx, ctx, {
          action: 'asset_filter.created',
          targetType: 'asset_filter',
          targetId: row.id,
          detail: { name: row.name },
        });
      });
      return presentAssetFilter(row);
    },

    async update(ctx, id, input) {
      const { row, owner } = await loadOwn(ctx.principal, id);
      const changes: Partial<AssetFilterRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.criteria !== undefined) changes.criteria = JSON.stringify(input.criteria);
      await db.transaction().execute(async (trx) => {
        if (input.name !== undefined) await refuseTakenName(trx, owner, input.name, id);
        await updateAssetFilter(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'asset_filter.updated',
          targetType: 'asset_filter',
          targetId: id,
          detail: { name: changes.name ?? row.name, fields: Object.keys(input) },
        });
      });
      return presentAssetFilter({ ...row, ...changes });
    },

    async remove(ctx, id) {
      const { row } = await loadOwn(ctx.principal, id);
      await db.transaction().execute(async (trx) => {
        await deleteAssetFilter(trx, id);
        await audit.record(trx, ctx, {
          action: 'asset_filter.deleted',
          targetType: 'asset_filter',
          targetId: id,
          detail: { name: row.name },
        });
      });
      return presentAssetFilter(row);
    },

    forgetOwner: async (owner) => {
      await deleteAssetFiltersOfAny(db, [owner]);
    },
    async forgetUser(trx, _ctx, user) {
      return {
        asset_filters_deleted: await deleteAssetFiltersOfAny(trx, ownersOfUser(user.userId, user.keyIds)),
      };
    },
  };
}
