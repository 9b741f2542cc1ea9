/** Pools and datasets of a NAS asset, read from its TrueNAS connector at each call (no copy kept here). */
import type { NasDataset, NasPool } from '@svc/protocol';
import type { Principal } from '../../access/principal.js';
import { nasDatasets, nasPools } from '../../connectors/nas/nas.connector.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { ConnectorService } from '../connectors/connectors.service.js';

export interface NasService {
  pools(principal: Principal, assetId: string, page: PageRequest): Promise<Page<NasPool>>;
  datasets(
    principal: Principal,
    assetId: string,
    filter: { pool?: string | undefined },
    page: PageRequest,
  ): Promise<Page<NasDataset>>;
}

/** One page of a list read whole from an upstream (TrueNAS sorts nothing we rely on: it is sorted here). */
function pageOf<T>(items: readonly T[], page: PageRequest): Page<T> {
  const { offset, limit } = pageWindow(page);
  return toPage(items.slice(offset, offset + limit), items.length, page);
}

export function createNasService(deps: { connectors: ConnectorService }): NasService {
  const { connectors } = deps;
  return {
    async pools(principal, assetId, page) {
      const { connector } = await connectors.resolveAsset(principal, assetId, 'nas');
      return pageOf(await connectors.call(connector, nasPools), page);
    },
    async datasets(principal, assetId, filter, page) {
      const { connector } = await connectors.resolveAsset(principal, assetId, 'nas');
      const all = await connectors.call(connector, nasDatasets);
      return pageOf(filter.pool === undefined ? all : all.filter((d) => d.pool === filter.pool), page);
    },
  };
}
