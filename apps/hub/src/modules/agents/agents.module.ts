import type { WebSocketAgentGateway } from '../../agents/gateway.js';
import type { PublicUpgradeHandlers } from '../../http/upgrade.js';
import type { EnrollmentService } from '../enrollment/enrollment.service.js';
import { defineModule } from '../module.js';
import { agentChannelRawRoutes, agentsRoutes } from './agents.routes.js';
import { createAgentsListService, type AgentsListDeps } from './agents.service.js';

/**
 * Agents as a resource: the ones connected now, their credentials (rotated and revoked through the
 * enrollment module's service), and the channel endpoint whose upgrades the gateway (`src/agents/`) takes.
 */
export function createAgentsModule(deps: {
  assets: AgentsListDeps['assets'];
  gateway: Pick<WebSocketAgentGateway, 'sessions' | 'handleUpgrade'>;
  credentials: Pick<EnrollmentService, 'rotateCredential' | 'revokeCredential'>;
  metricsCounts?: AgentsListDeps['metricsCounts'];
}) {
  const { gateway } = deps;
  const agents = createAgentsListService({
    assets: deps.assets,
    gateway,
    ...(deps.metricsCounts ? { metricsCounts: deps.metricsCounts } : {}),
  });
  return defineModule({
    name: 'agents',
    services: { agents },
    handlers: agentsRoutes({ agents, credentials: deps.credentials }),
    rawHandlers: agentChannelRawRoutes(),
    publicUpgrades: {
      'agents.channel': (request, socket, head) => {
        gateway.handleUpgrade(request, socket, head);
      },
    } satisfies PublicUpgradeHandlers,
  });
}
