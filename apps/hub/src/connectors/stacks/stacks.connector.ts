/** The Portainer driver: each endpoint (environment) is an asset; its stacks are read per endpoint asset. */
import type { StacksStack } from '@svc/protocol';
import type { ConnectorDriver, UpstreamContext } from '../base/connector.js';
import { createPortainerClient } from './stacks.client.js';
import { endpointExternalId, endpointFacts, endpointStatus, stacksOfEndpoint } from './stacks.mapping.js';

export const stacksDriver: ConnectorDriver = {
  kind: 'stacks',
  async check(ctx) {
    await createPortainerClient(ctx).version();
  },
  async inventory(ctx) {
    const endpoints = await createPortainerClient(ctx).endpoints();
    return endpoints.map((endpoint) => ({
      externalId: endpointExternalId(endpoint.Id),
      kind: 'stacks_endpoint' as const,
      name: endpoint.Name,
      status: endpointStatus(endpoint),
      facts: endpointFacts(endpoint),
    }));
  },
};

export async function endpointStacks(ctx: UpstreamContext, endpointId: number): Promise<StacksStack[]> {
  return stacksOfEndpoint(await createPortainerClient(ctx).stacks(endpointId), endpointId);
}
