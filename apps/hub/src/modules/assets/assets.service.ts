import {
  newId,
  type Asset,
  type AssetCreate,
  type AssetListQuery,
  type AssetStatus,
  type AssetUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest, type Window } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import { canSeeAsset, isRestricted, type ActionContext, type Principal } from '../../access/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  countAssets,
  countAssetsByStatus,
  deleteAsset,
  findAsset,
  countOnlineAgentsByNode,
  findAssetNames,
  listAssetPresence,
  findMissingAssetIds,
  insertAsset,
  listAssets,
  updateAsset,
  type AssetRow,
} from './assets.repository.js';

export type { AssetRow };
import { presentAsset } from './assets.presenter.js';
import type { AssetListCache } from './asset-list-cache.js';

export interface AssetService {
  list(principal: Principal, query: AssetListQuery, page: PageRequest): Promise<Page<Asset>>;
  get(principal: Principal, id: string): Promise<Asset>;
  create(ctx: ActionContext, input: AssetCreate): Promise<Asset>;
  update(ctx: ActionContext, id: string, input: AssetUpdate): Promise<Asset>;
  remove(ctx: ActionContext, id: string): Promise<Asset>;
  /** Marks the asset as the machine the hub runs on (its local agent's): a one-way mark, audited. */
  markHubHost(ctx: ActionContext, id: string): Promise<void>;

  // What other modules read and write of assets: through these, never through the table.
  /** Counts by status among the visible assets (null: all). */
  countByStatus(visible: readonly string[] | null): Promise<Record<AssetStatus, number>>;
  /** Online agents by the hub process that holds them (the hub status's processes). */
  onlineAgentsByNode(): Promise<Map<string, number>>;
  count(visible: readonly string[] | null): Promise<number>;
  /** The ids among `ids` that name no asset. */
  missingIds(ids: readonly string[]): Promise<string[]>;
  /** Visible assets whose name, hostname, addresses or tags contain `text`, by name. */
  matching(
    visible: readonly string[] | null,
    text: string,
    window: Window,
  ): Promise<{ rows: AssetRow[]; total: number }>;
  findRow(id: string): Promise<AssetRow | undefined>;
  /** Names of the assets among `ids` that exist. */
  names(ids: readonly string[]): Promise<Map<string, string>>;
  /** Name and presence of these assets (null: every asset), at most `limit` of them; for the hub's own rules. */
  presence(ids: readonly string[] | null, limit: number): Promise<AssetPresence[]>;
  /** Adds an asset inside the caller's transaction (enrollment adds the agent's asset with its credential). */
  insertRow(trx: Executor, row: AssetRow): Promise<void>;
}

type AssetPresence = Pick<AssetRow, 'id' | 'name' | 'status' | 'last_seen_at'>;

export interface AssetServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  /** Whether an agent for this asset holds a connection now (the agent gateway answers). */
  isConnected?: (assetId: string) => boolean;
  /** Closes the asset's agent connection once the asset is gone (its credential went with it). */
  disconnectAgent?: (assetId: string) => void;
  /** Keeps list pages while nothing they show has changed; absent where that cannot be known (PostgreSQL). */
  listCache?: AssetListCache;
}

export function visibleAssetIds(principal: Principal): readonly string[] | null {
  return principal.allowedAssets === null ? null : [...principal.allowedAssets];
}

/** MAC addresses are stored as lowercase, colon-separated. */
function normalizeMac(mac: string | null | undefined): string | null {
  return mac ? mac.toLowerCase().replace(/-/g, ':') : null;
}

function notFound(id: string): HubError {
  return new HubError('not_found', `no asset ${id}`);
}

/**
 * Fields of PUT /assets/{id} that no list page's membership, order or total depends on: no filter, search or
 * sort reads them (assets.repository.ts listAssets), so a page that held the asset still holds it at the same
 * place, and one that did not still does not.
 */
const orderNeutralFields: ReadonlySet<string> = new Set(['description', 'mac_address']);

function orderNeutral(input: object): boolean {
  return Object.keys(input).every((field) => orderNeutralFields.has(field));
}

export function createAssetService(deps: AssetServiceDeps): AssetService {
  const { db, clock, audit, events } = deps;
  const isConnected = deps.isConnected ?? (() => false);
  const present = (row: AssetRow) => presentAsset(row, isConnected(row.id));

  /** Loads an asset the principal may see; anything else is the same 404 as a random id. */
  async function loadVisible(principal: Principal, id: string): Promise<AssetRow> {
    if (!canSeeAsset(principal, id)) throw notFound(id);
    const row = await findAsset(db, id);
    if (!row) throw notFound(id);
    return row;
  }

  return {
    async list(principal, query, page) {
      const cache = principal.allowedAssets === null ? deps.listCache : undefined;
      const key = JSON.stringify([
        query.status,
        query.platform,
        query.group,
        query.ids,
        query.q,
        query.sort,
        page.page,
        page.perPage,
      ]);
      const load = async () => {
        const { rows, total } = await listAssets(
          db,
          {
            status: query.status,
            platform: query.platform,
            group: query.group,
            ids: query.ids?.split(','),
            text: query.q?.trim() || undefined,
            visible: visibleAssetIds(principal),
          },
          pageWindow(page),
          query.sort,
        );
        return toPage(rows.map(present), total, page);
      };
      return cache ? cache.read(key, load) : load();
    },

    async get(principal, id) {
      return present(await loadVisible(principal, id));
    },

    async create(ctx, input) {
      if (isRestricted(ctx.principal)) {
        throw new HubError('forbidden', 'a key limited to some assets cannot add assets');
      }
      const now = clock.now().toISOString();
      const row: AssetRow = {
        id: newId('asset'),
        name: input.name,
        hostname: input.hostname ?? null,
        platform: input.platform ?? 'other',
        status: 'unknown',
        source: 'manual',
        ip_addresses: JSON.stringify(input.ip_addresses ?? []),
        mac_address: normalizeMac(input.mac_address),
        tags: JSON.stringify([...new Set(input.tags ?? [])]),
        description: input.description ?? null,
        last_seen_at: null,
        agent_version: null,
        agent_connected_at: null,
        agent_low_power: null,
        hub_host: 0,
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await insertAsset(trx, row);
        await audit.record(trx, ctx, {
          action: 'asset.created',
          targetType: 'asset',
          targetId: row.id,
          assetId: row.id,
          detail: { name: row.name },
        });
      });
      events.publish('asset.created', { asset_ids: [row.id], asset_id: row.id, name: row.name });
      return present(row);
    },

    async update(ctx, id, input) {
      const row = await loadVisible(ctx.principal, id);
      const changes: Partial<AssetRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.hostname !== undefined) changes.hostname = input.hostname;
      if (input.platform !== undefined) changes.platform = input.platform;
      if (input.ip_addresses !== undefined) changes.ip_addresses = JSON.stringify(input.ip_addresses);
      if (input.mac_address !== undefined) changes.mac_address = normalizeMac(input.mac_address);
      if (input.tags !== undefined) changes.tags = JSON.stringify([...new Set(input.tags)]);
      if (input.description !== undefined) changes.description = input.description;
      const cache = orderNeutral(input) ? deps.listCache : undefined;
      let written: { from: string; to: string; row: AssetRow } | undefined;
      await db.transaction().execute(async (trx) => {
        // No other query runs inside this transaction (SQLite, where alone the cache exists), so the stamp
        // moves between these two reads by this update only, unless state kept outside moved it too.
        const from = cache?.stamp();
        await updateAsset(trx, id, changes);
        if (cache && from !== undefined) {
          const to = cache.stamp();
          const fresh = Number(to) === Number(from) + 1 ? await findAsset(trx, id) : undefined;
          if (fresh) written = { from, to, row: fresh };
        }
        await audit.record(trx, ctx, {
          action: 'asset.updated',
          targetType: 'asset',
          targetId: id,
          assetId: id,
          detail: { fields: Object.keys(input) },
        });
      });
      events.publish('asset.updated', {
        asset_ids: [id],
        asset_id: id,
        name: changes.name ?? row.name,
        fields: Object.keys(input),
      });
      // Committed: the kept pages become those of the new stamp with this asset's new copy, rather than all being
      // read again by the next callers (replace does nothing if anything else was written since).
      if (cache && written) cache.replace(written.from, written.to, present(written.row));
      return present({ ...row, ...changes });
    },

    async remove(ctx, id) {
      const row = await loadVisible(ctx.principal, id);
      await db.transaction().execute(async (trx) => {
        await deleteAsset(trx, id);
        await audit.record(trx, ctx, {
          action: 'asset.deleted',
          targetType: 'asset',
          targetId: id,
          assetId: id,
          detail: { name: row.name },
        });
      });
      // The metrics module deletes the asset's history when it hears this (metrics.module.ts).
      events.publish('asset.deleted', { asset_ids: [id], asset_id: id, name: row.name });
      deps.disconnectAgent?.(id);
      return present(row);
    },

    async markHubHost(ctx, id) {
      const row = await loadVisible(ctx.principal, id);
      if (row.hub_host === 1) return;
      await db.transaction().execute(async (trx) => {
        await updateAsset(trx, id, { hub_host: 1, updated_at: clock.now().toISOString() });
        await audit.record(trx, ctx, {
          action: 'asset.updated',
          targetType: 'asset',
          targetId: id,
          assetId: id,
          detail: { fields: ['hub_host'] },
        });
      });
      events.publish('asset.updated', {
        asset_ids: [id],
        asset_id: id,
        name: row.name,
        fields: ['hub_host'],
      });
    },

    async countByStatus(visible) {
      const counts = await countAssetsByStatus(db, visible);
      return { online: counts.online ?? 0, offline: counts.offline ?? 0, unknown: counts.unknown ?? 0 };
    },
    count: (visible) => countAssets(db, visible),
    missingIds: (ids) => findMissingAssetIds(db, ids),
    matching: (visible, text, window) => listAssets(db, { visible, text }, window),
    findRow: (id) => findAsset(db, id),
    names: (ids) => findAssetNames(db, ids),
    onlineAgentsByNode: () => countOnlineAgentsByNode(db),
    presence: (ids, limit) => listAssetPresence(db, ids, limit),
    insertRow: (trx, row) => insertAsset(trx, row),
  };
}
