/**
 * The agents list (GET /hub/agents): the agents holding a connection now (from the gateway), named from the assets table and
 * sorted by name. A caller limited to some assets sees only their agents.
 */
import type { ConnectedAgent } from '@svc/protocol';
import type { AgentGateway, AgentSessionInfo } from '../../agents/agent-gateway.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { canSeeAsset, type Principal } from '../../access/principal.js';
import type { AssetService } from '../assets/assets.service.js';

export interface AgentsListService {
  list(principal: Principal, page: PageRequest): Promise<Page<ConnectedAgent>>;
}

const noMetrics: ConnectedAgent['metrics'] = { accepted: 0, over_budget: 0, duplicate: 0, out_of_window: 0 };

function present(
  session: AgentSessionInfo,
  name: string,
  metrics: ConnectedAgent['metrics'],
): ConnectedAgent {
  const { hello } = session;
  return {
    asset_id: session.assetId,
    name,
    hostname: hello.hostname || null,
    platform: hello.platform,
    agent_version: hello.agent_version || null,
    connected_at: session.connectedAt.toISOString(),
    last_seen_at: session.lastSeenAt.toISOString(),
    remote_address: session.remoteAddress,
    low_power: hello.low_power,
    metrics,
  };
}

export interface AgentsListDeps {
  /** Names of the agents' assets (the assets module owns them). */
  assets: Pick<AssetService, 'names'>;
  gateway: Pick<AgentGateway, 'sessions'>;
  /** What the metrics budget took and dropped from an agent (metrics-budget.ts). */
  metricsCounts?: (assetId: string) => ConnectedAgent['metrics'];
}

export function createAgentsListService(deps: AgentsListDeps): AgentsListService {
  const { gateway } = deps;
  const metricsCounts = deps.metricsCounts ?? (() => noMetrics);
  return {
    async list(principal, page) {
      const sessions = gateway.sessions().filter((s) => canSeeAsset(principal, s.assetId));
      // A session whose asset was deleted a moment ago has no name to show and is left out.
      const names = await deps.assets.names(sessions.map((s) => s.assetId));
      const named = sessions
        .filter((s) => names.has(s.assetId))
        .map((s) => ({ session: s, name: names.get(s.assetId) ?? '' }))
        .sort((a, b) =>
          a.name < b.name ? -1 : a.name > b.name ? 1 : a.session.assetId < b.session.assetId ? -1 : 1,
        );
      const { limit, offset } = pageWindow(page);
      const items = named
        .slice(offset, offset + limit)
        .map((n) => present(n.session, n.name, metricsCounts(n.session.assetId)));
      return toPage(items, named.length, page);
    },
  };
}
