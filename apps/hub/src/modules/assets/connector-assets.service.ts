/**
 * Assets a connector brings (a Proxmox node or guest, the NAS, a backup server): written upsert-style from the
 * connector's inventory, keyed by (connector, upstream id); what vanished upstream is removed. They have no
 * agent, so operations that need one answer 409 `asset_offline` like for any absent agent.
 */
import { newId } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { InventoryItem } from '../../connectors/base/connector.js';
import type { Clock } from '../../platform/clock.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { AssetRow } from './assets.repository.js';
import {
  countConnectorAssets,
  deleteConnectorAssets,
  findAnyAssetId,
  findConnectorAssetRow,
  insertConnectorAsset,
  listAllConnectorAssets,
  listConnectorAssets,
  updateConnectorAsset,
} from './connector-assets.repository.js';

/** A connector asset as services read it. */
export interface ConnectorAsset {
  id: string;
  name: string;
  status: string;
  connectorId: string;
  kind: string;
  externalId: string;
  parentId: string | null;
  facts: Record<string, unknown>;
}

export interface ConnectorAssetService {
  /**
   * Makes the connector's assets match the inventory: insert, update what changed, delete what vanished.
   * Idempotent by upstream id: an item listed twice is stored once (the first), and counted once.
   */
  sync(connectorId: string, items: readonly InventoryItem[]): Promise<{ count: number }>;
  /** Removes every asset of a connector (it was deleted), inside the caller's transaction. */
  removeAll(trx: Executor, connectorId: string): Promise<{ id: string; name: string }[]>;
  list(connectorId: string): Promise<ConnectorAsset[]>;
  /** Every connector asset, for the dependency graph. */
  all(): Promise<ConnectorAsset[]>;
  counts(): Promise<Map<string, number>>;
  find(id: string): Promise<ConnectorAsset | null>;
  /** Whether any asset (of any source) has this id. */
  exists(id: string): Promise<boolean>;
}

/** A connector asset's stored facts (`connector_facts`); {} for none or for text that is not a JSON object. */
export function readConnectorFacts(text: string | null | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function toConnectorAsset(row: AssetRow): ConnectorAsset | null {
  if (row.source !== 'connector' || !row.connector_id || !row.external_id) return null;
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    connectorId: row.connector_id,
    kind: row.connector_kind ?? 'unknown',
    externalId: row.external_id,
    parentId: row.parent_asset_id ?? null,
    facts: readConnectorFacts(row.connector_facts),
  };
}

/**
 * One item per upstream id, the first as reported: an upstream may list a thing twice (a paging overlap, a
 * race while it changes), and the asset table holds one row per (connector, upstream id).
 */
function firstOfEach(items: readonly InventoryItem[]): InventoryItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    if (seen.has(item.externalId)) return false;
    seen.add(item.externalId);
    return true;
  });
}

const present = (rows: AssetRow[]) => rows.map(toConnectorAsset).filter((a) => a !== null);

export function createConnectorAssetService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  events: EventBus;
}): ConnectorAssetService {
  const { db, clock, events } = deps;

  return {
    async sync(connectorId, reported) {
      const items = firstOfEach(reported);
      const now = clock.now().toISOString();
      const created: AssetRow[] = [];
      const updated: { id: string; name: string; fields: string[] }[] = [];
      const removed: AssetRow[] = [];
      await db.transaction().execute(async (trx) => {
        const existing = new Map(
          (await listConnectorAssets(trx, connectorId)).map((row) => [row.external_id ?? '', row]),
        );
        const ids = new Map<string, string>();
        for (const item of items)
          ids.set(item.externalId, existing.get(item.externalId)?.id ?? newId('asset'));
        for (const item of items) {
          const id = ids.get(item.externalId) ?? newId('asset');
          const values = {
            name: item.name.slice(0, 120),
            hostname: item.hostname ?? null,
            status: item.status,
            ip_addresses: JSON.stringify(item.ipAddresses ?? []),
            connector_kind: item.kind,
            parent_asset_id: item.parentExternalId == null ? null : (ids.get(item.parentExternalId) ?? null),
            connector_facts: JSON.stringify(item.facts ?? {}),
          };
          const row = existing.get(item.externalId);
          if (!row) {
            const inserted: AssetRow = {
              id,
              ...values,
              platform: 'other',
              source: 'connector',
              mac_address: null,
              tags: '[]',
              description: null,
              last_seen_at: item.status === 'online' ? now : null,
              agent_version: null,
              agent_connected_at: null,
              agent_low_power: null,
              hub_host: 0,
              connector_id: connectorId,
              external_id: item.externalId,
              created_at: now,
              updated_at: now,
            };
            await insertConnectorAsset(trx, inserted);
            created.push(inserted);
            continue;
          }
          const fields = (Object.keys(values) as (keyof typeof values)[]).filter(
            (field) => (row[field] ?? null) !== values[field],
          );
          if (fields.length === 0) {
            if (item.status === 'online') await updateConnectorAsset(trx, row.id, { last_seen_at: now });
            continue;
          }
          await updateConnectorAsset(trx, row.id, {
            ...values,
            updated_at: now,
            ...(item.status === 'online' ? { last_seen_at: now } : {}),
          });
          updated.push({ id: row.id, name: values.name, fields });
        }
        const seen = new Set(items.map((item) => item.externalId));
        for (const row of existing.values()) if (!seen.has(row.external_id ?? '')) removed.push(row);
        await deleteConnectorAssets(
          trx,
          removed.map((row) => row.id),
        );
      });
      for (const row of created)
        events.publish('asset.created', { asset_ids: [row.id], asset_id: row.id, name: row.name });
      for (const change of updated)
        events.publish('asset.updated', {
          asset_ids: [change.id],
          asset_id: change.id,
          name: change.name,
          fields: change.fields,
        });
      for (const row of removed)
        events.publish('asset.deleted', { asset_ids: [row.id], asset_id: row.id, name: row.name });
      return { count: items.length };
    },

    async removeAll(trx, connectorId) {
      const rows = await listConnectorAssets(trx, connectorId);
      await deleteConnectorAssets(
        trx,
        rows.map((row) => row.id),
      );
      return rows.map((row) => ({ id: row.id, name: row.name }));
    },

    list: async (connectorId) => present(await listConnectorAssets(db, connectorId)),
    all: async () => present(await listAllConnectorAssets(db)),
    counts: () => countConnectorAssets(db),
    async find(id) {
      const row = await findConnectorAssetRow(db, id);
      return row ? toConnectorAsset(row) : null;
    },
    exists: async (id) => (await findAnyAssetId(db, id)) !== undefined,
  };
}
