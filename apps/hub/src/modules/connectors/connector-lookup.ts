/**
 * Finding connectors for the modules that act through them (virt, nas, backup, …): the enabled ones of a kind,
 * one picked by id or the first, and the connector behind one of their assets.
 */
import type { ConnectorKind } from '@svc/protocol';
import type { Kysely } from 'kysely';
import { canSeeAsset, type Principal } from '../../access/principal.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import type { ConnectorAsset, ConnectorAssetService } from '../assets/connector-assets.service.js';
import { allConnectors, findConnector, type ConnectorRow } from './connectors.repository.js';
import type { ConnectorHandle } from './connectors.service.js';

const handleOf = (row: ConnectorRow): ConnectorHandle => ({
  id: row.id,
  kind: row.kind as ConnectorKind,
  name: row.name,
});

export async function enabledConnectors(
  db: Kysely<Database>,
  kind: ConnectorKind,
): Promise<ConnectorHandle[]> {
  return (await allConnectors(db)).filter((row) => row.kind === kind && row.enabled === 1).map(handleOf);
}

/** The enabled connector of this kind with this id, or the first enabled one: 404 when there is none. */
export async function pickConnector(
  db: Kysely<Database>,
  kind: ConnectorKind,
  id: string | undefined,
): Promise<ConnectorHandle> {
  const enabled = await enabledConnectors(db, kind);
  const found = id === undefined ? enabled[0] : enabled.find((c) => c.id === id);
  if (!found) {
    throw new HubError(
      'not_found',
      id === undefined ? `no enabled ${kind} connector` : `no enabled ${kind} connector ${id}`,
    );
  }
  return found;
}

/** 404 for no such asset, 409 for one no connector of this kind brought. */
export async function resolveConnectorAsset(
  deps: { db: Kysely<Database>; connectorAssets: ConnectorAssetService },
  principal: Principal,
  assetId: string,
  kind: ConnectorKind,
): Promise<{ asset: ConnectorAsset; connector: ConnectorHandle }> {
  const { db, connectorAssets } = deps;
  if (!canSeeAsset(principal, assetId)) throw new HubError('not_found', `no asset ${assetId}`);
  const asset = await connectorAssets.find(assetId);
  const row = asset ? await findConnector(db, asset.connectorId) : undefined;
  if (!asset || !row || row.kind !== kind) {
    if (!asset && !(await connectorAssets.exists(assetId)))
      throw new HubError('not_found', `no asset ${assetId}`);
    throw new HubError('conflict', `asset ${assetId} is not managed by a ${kind} connector`);
  }
  return { asset, connector: handleOf(row) };
}
