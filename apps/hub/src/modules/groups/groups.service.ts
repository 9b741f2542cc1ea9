import { newId, type Group, type GroupCreate, type GroupUpdate } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest, type Window } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { canSeeAsset, type ActionContext, type Principal } from '../../access/principal.js';
import { visibleAssetIds, type AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  deleteGroup,
  findGroup,
  insertGroup,
  listGroupMembers,
  listGroups,
  replaceGroupMembers,
  updateGroup,
  type GroupRow,
} from './groups.repository.js';

export interface GroupService {
  list(principal: Principal, page: PageRequest): Promise<Page<Group>>;
  get(principal: Principal, id: string): Promise<Group>;
  create(ctx: ActionContext, input: GroupCreate): Promise<Group>;
  update(ctx: ActionContext, id: string, input: GroupUpdate): Promise<Group>;
  remove(ctx: ActionContext, id: string): Promise<Group>;
  /** Member ids of a group the principal may see (for fan-out by group); 404 otherwise. */
  members(principal: Principal, id: string): Promise<string[]>;

  // What other modules read of groups.
  /** Each group's members, whoever asks (maintenance windows follow a group's membership); none for a group gone. */
  membersOf(ids: readonly string[]): Promise<Map<string, string[]>>;
  /** Groups with at least one visible member (null: all groups). */
  count(visible: readonly string[] | null): Promise<number>;
  /** Groups with a visible member whose name contains `text`, by name. */
  matching(
    visible: readonly string[] | null,
    text: string,
    window: Window,
  ): Promise<{ rows: GroupRow[]; total: number }>;
}

/** A group as a principal sees it: members outside its allowed assets are not shown. */
function presentGroup(row: GroupRow, members: readonly string[], principal: Principal): Group {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    asset_ids: members.filter((id) => canSeeAsset(principal, id)),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function createGroupService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  assets: Pick<AssetService, 'missingIds'>;
}): GroupService {
  const { db, clock, audit, events, assets } = deps;

  async function loadVisible(
    principal: Principal,
    id: string,
  ): Promise<{ row: GroupRow; members: string[] }> {
    const row = await findGroup(db, id);
    if (!row) throw new HubError('not_found', `no group ${id}`);
    const members = (await listGroupMembers(db, [id])).get(id) ?? [];
    if (principal.allowedAssets !== null && !members.some((m) => canSeeAsset(principal, m))) {
      throw new HubError('not_found', `no group ${id}`);
    }
    return { row, members };
  }

  async function checkMembers(principal: Principal, assetIds: readonly string[]): Promise<void> {
    const hidden = assetIds.filter((id) => !canSeeAsset(principal, id));
    const missing = await assets.missingIds(assetIds.filter((id) => canSeeAsset(principal, id)));
    const unknown = [...hidden, ...missing];
    if (unknown.length > 0) throw validationError('asset_ids', `unknown asset ids: ${unknown.join(', ')}`);
    if (principal.allowedAssets !== null && assetIds.length === 0) {
      throw validationError('asset_ids', 'a key limited to some assets must name at least one of them');
    }
  }

  /** A restricted key may change a group only when it can see every member of it. */
  function checkWholeGroupVisible(principal: Principal, id: string, members: readonly string[]): void {
    if (members.some((m) => !canSeeAsset(principal, m))) {
      throw new HubError('forbidden', `group ${id} has members outside this key's allowed assets`);
    }
  }

  return {
    async list(principal, page) {
      const { rows, total } = await listGroups(db, { visible: visibleAssetIds(principal) }, pageWindow(page));
      const members = await listGroupMembers(
        db,
        rows.map((r) => r.id),
      );
      return toPage(
        rows.map((r) => presentGroup(r, members.get(r.id) ?? [], principal)),
        total,
        page,
      );
    },

    async get(principal, id) {
      const { row, members } = await loadVisible(principal, id);
      return presentGroup(row, members, principal);
    },

    membersOf: (ids) => listGroupMembers(db, ids),

    async members(principal, id) {
      const { members } = await loadVisible(principal, id);
      return members;
    },

    async create(ctx, input) {
      const assetIds = input.asset_ids ?? [];
      await checkMembers(ctx.principal, assetIds);
      const now = clock.now().toISOString();
      const row: GroupRow = {
        id: newId('group'),
        name: input.name,
        description: input.description ?? null,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await insertGroup(trx, row);
        await replaceGroupMembers(trx, row.id, assetIds);
        await audit.record(trx, ctx, {
          action: 'group.created',
          targetType: 'group',
          targetId: row.id,
          detail: { name: row.name, members: assetIds.length },
        });
      });
      events.publish('group.created', { asset_ids: [...assetIds], group_id: row.id, name: row.name });
      return presentGroup(row, [...assetIds].sort(), ctx.principal);
    },

    async update(ctx, id, input) {
      const { row, members } = await loadVisible(ctx.principal, id);
      checkWholeGroupVisible(ctx.principal, id, members);
      if (input.asset_ids !== undefined) await checkMembers(ctx.principal, input.asset_ids);
      const changes: Partial<GroupRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      await db.transaction().execute(async (trx) => {
        await updateGroup(trx, id, changes);
        if (input.asset_ids !== undefined) await replaceGroupMembers(trx, id, input.asset_ids);
        await audit.record(trx, ctx, {
          action: 'group.updated',
          targetType: 'group',
          targetId: id,
          detail: { fields: Object.keys(input) },
        });
      });
      const newMembers = input.asset_ids !== undefined ? [...input.asset_ids].sort() : members;
      // Old and new members both: whoever saw an asset leave the group learns of it.
      events.publish('group.updated', {
        asset_ids: [...new Set([...members, ...newMembers])],
        group_id: id,
        name: changes.name ?? row.name,
        fields: Object.keys(input),
      });
      return presentGroup({ ...row, ...changes }, newMembers, ctx.principal);
    },

    async remove(ctx, id) {
      const { row, members } = await loadVisible(ctx.principal, id);
      checkWholeGroupVisible(ctx.principal, id, members);
      await db.transaction().execute(async (trx) => {
        await deleteGroup(trx, id);
        await audit.record(trx, ctx, {
          action: 'group.deleted',
          targetType: 'group',
          targetId: id,
          detail: { name: row.name },
        });
      });
      events.publish('group.deleted', { asset_ids: [...members], group_id: id, name: row.name });
      return presentGroup(row, members, ctx.principal);
    },

    count: async (visible) => (await listGroups(db, { visible }, { limit: 0, offset: 0 })).total,
    matching: (visible, text, window) => listGroups(db, { visible, text }, window),
  };
}
