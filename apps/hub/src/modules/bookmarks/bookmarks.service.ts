/**
 * Terminal bookmarks (decision 0091): an asset and a working directory, one owner's (a console user, or an
 * API key, as sessions are owned). Only its owner sees or changes one, on an asset it may still see; a
 * bookmark of a deleted asset, or of a deleted API key, goes with it. Opening one is the console's: a new session whose first input is
 * `cd` into the directory.
 */
import {
  bookmarkLimits,
  newId,
  type Bookmark,
  type BookmarkCreate,
  type BookmarkUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { canSeeAsset, type ActionContext, type Principal } from '../../access/principal.js';
import { ownerOf, ownersOfUser, sameOwner, type Owner } from '../../access/session-access.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { visibleAssetIds, type AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { UserDataHolder } from '../users/users.service.js';
import {
  countOwnedBookmarks,
  deleteBookmark,
  deleteBookmarksOfAsset,
  deleteBookmarksOfAny,
  deleteOwnedBookmarks,
  findBookmark,
  insertBookmark,
  listBookmarks,
  updateBookmark,
  type BookmarkRow,
} from './bookmarks.repository.js';

/** A deleted user's bookmarks, and their keys', go with them (decision 0087). */
export interface BookmarkService extends UserDataHolder {
  list(principal: Principal, page: PageRequest): Promise<Page<Bookmark>>;
  create(ctx: ActionContext, input: BookmarkCreate): Promise<Bookmark>;
  update(ctx: ActionContext, id: string, input: BookmarkUpdate): Promise<Bookmark>;
  remove(ctx: ActionContext, id: string): Promise<Bookmark>;
  /** Removes every bookmark of an asset that was deleted. */
  forgetAsset(assetId: string): Promise<void>;
  /** Removes the bookmarks of an owner that is gone (a deleted API key). */
  forgetOwner(owner: Owner): Promise<void>;
}

function presentBookmark(row: BookmarkRow): Bookmark {
  return {
    id: row.id,
    name: row.name,
    asset_id: row.asset_id,
    directory: row.directory,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function requireOwner(principal: Principal): Owner {
  const owner = ownerOf(principal);
  if (!owner) throw new HubError('forbidden', 'Bookmarks need a user or an API key as their owner.');
  return owner;
}

export function createBookmarkService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  assets: Pick<AssetService, 'missingIds'>;
}): BookmarkService {
  const { db, clock, audit, assets } = deps;

  /** The caller's own bookmark on an asset it may see; 404 for anything else. */
  async function loadOwn(principal: Principal, id: string): Promise<BookmarkRow> {
    const row = await findBookmark(db, id);
    const owner = ownerOf(principal);
    if (!row || owner === null || !sameOwner(owner, row) || !canSeeAsset(principal, row.asset_id))
      throw new HubError('not_found', `no bookmark ${id}`);
    return row;
  }

  return {
    async list(principal, page) {
      const owner = ownerOf(principal);
      if (!owner) return toPage([], 0, page);
      const { rows, total } = await listBookmarks(db, owner, visibleAssetIds(principal), pageWindow(page));
      return toPage(rows.map(presentBookmark), total, page);
    },

    async create(ctx, input) {
      const owner = requireOwner(ctx.principal);
      // An asset the caller may not see reads as unknown, as everywhere else.
      const unknown =
        !canSeeAsset(ctx.principal, input.asset_id) || (await assets.missingIds([input.asset_id])).length > 0;
      if (unknown) throw validationError('asset_id', `unknown asset id: ${input.asset_id}`);
      const now = clock.now().toISOString();
      const row: BookmarkRow = {
        id: newId('bookmark'),
        name: input.name ?? null,
        asset_id: input.asset_id,
        directory: input.directory,
        ...owner,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        if ((await countOwnedBookmarks(trx, owner)) >= bookmarkLimits.perOwner)
          throw new HubError(
            'conflict',
            `you already have ${bookmarkLimits.perOwner} bookmarks; delete one first`,
          );
        await insertBookmark(trx, row);
        await audit.record(trx, ctx, {
          action: 'bookmark.created',
          targetType: 'bookmark',
          targetId: row.id,
          detail: { asset_id: row.asset_id, directory: row.directory },
        });
      });
      return presentBookmark(row);
    },

    async update(ctx, id, input) {
      const row = await loadOwn(ctx.principal, id);
      const changes: Partial<BookmarkRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.directory !== undefined) changes.directory = input.directory;
      await db.transaction().execute(async (trx) => {
        await updateBookmark(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'bookmark.updated',
          targetType: 'bookmark',
          targetId: id,
          detail: { fields: Object.keys(input) },
        });
      });
      return presentBookmark({ ...row, ...changes });
    },

    async remove(ctx, id) {
      const row = await loadOwn(ctx.principal, id);
      await db.transaction().execute(async (trx) => {
        await deleteBookmark(trx, id);
        await audit.record(trx, ctx, {
          action: 'bookmark.deleted',
          targetType: 'bookmark',
          targetId: id,
          detail: { asset_id: row.asset_id, directory: row.directory },
        });
      });
      return presentBookmark(row);
    },

    forgetAsset: (assetId) => deleteBookmarksOfAsset(db, assetId),
    forgetOwner: (owner) => deleteOwnedBookmarks(db, owner),
    async forgetUser(trx, _ctx, user) {
      return { bookmarks_deleted: await deleteBookmarksOfAny(trx, ownersOfUser(user.userId, user.keyIds)) };
    },
  };
}
