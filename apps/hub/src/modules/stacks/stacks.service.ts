/** The stacks of a Portainer endpoint asset, read from its connector at each call. */
import type { StacksStack } from '@svc/protocol';
import type { Principal } from '../../access/principal.js';
import { endpointStacks } from '../../connectors/stacks/stacks.connector.js';
import { endpointIdOf } from '../../connectors/stacks/stacks.mapping.js';
import { HubError } from '../../platform/hub-error.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { ConnectorService } from '../connectors/connectors.service.js';

export interface StacksService {
  list(principal: Principal, assetId: string, page: PageRequest): Promise<Page<StacksStack>>;
}

export function createStacksService(deps: { connectors: ConnectorService }): StacksService {
  const { connectors } = deps;
  return {
    async list(principal, assetId, page) {
      const { asset, connector } = await connectors.resolveAsset(principal, assetId, 'stacks');
      const endpointId = endpointIdOf(asset.externalId);
      if (endpointId === null) {
        throw new HubError('conflict', `asset ${asset.name} (${asset.id}) is not a Portainer endpoint`);
      }
      const stacks = await connectors.call(connector, (ctx) => endpointStacks(ctx, endpointId));
      const { offset, limit } = pageWindow(page);
      return toPage(stacks.slice(offset, offset + limit), stacks.length, page);
    },
  };
}
