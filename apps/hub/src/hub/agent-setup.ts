/**
 * The agents' side of the hub: this process's WebSocket gateway and presence, the cluster gateway that reaches
 * the other processes' agents over the bus, the owned state behind both (decision 0058), and the one path
 * every operation on an asset takes to its agent.
 */
import type { Kysely } from 'kysely';
import type { HubConfig } from '../config/env.js';
import { createAgentCaller, type AgentCaller } from '../agents/agent-call.js';
import { createChannelAuthenticator } from '../agents/channel-auth.js';
import { createClusterGateway, type ClusterAgentGateway } from '../agents/cluster-gateway.js';
import {
  createAgentGateway,
  type AgentGatewayDeps,
  type AgentMover,
  type WebSocketAgentGateway,
} from '../agents/gateway.js';
import { createPresence, type Presence } from '../agents/presence.js';
import { createAssetPresenceStore } from '../modules/assets/asset-presence.service.js';
import { createAssetReads } from '../modules/assets/asset-reads.service.js';
import type { Clock } from '../platform/clock.js';
import type { Cluster } from '../platform/cluster/cluster.js';
import { createOwnedStates, type OwnedStates } from '../platform/cluster/owned-state.js';
import type { Database } from '../platform/db/schema.js';
import type { WriteVersions } from '../platform/db/write-versions.js';
import type { EventBus } from '../platform/event-bus.js';
import type { Logger } from '../platform/logger.js';
import type { RefusalLog } from '../platform/refusal-log.js';
import type { PrometheusTelemetry } from '../platform/telemetry/prometheus.js';

export interface ConnectedAgents {
  presence: Presence;
  /** This process's own agents. */
  localGateway: WebSocketAgentGateway & AgentMover;
  /** Every agent of the cluster: this process's own through localGateway, the others' over the bus. */
  gateway: ClusterAgentGateway;
  owned: OwnedStates;
  agentCalls: AgentCaller;
  /** Tells the cluster gateway that an agent of this process came or went. */
  readinessChanged: (assetId: string) => void;
}

export interface ConnectAgentsDeps {
  config: Pick<HubConfig, 'tlsMode' | 'trustedProxies'>;
  cluster: Cluster;
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: AgentGatewayDeps['metrics'];
  refusals: RefusalLog;
  telemetry: PrometheusTelemetry;
  writeVersions: WriteVersions | null;
  collectIntervalS: number;
  discoveryDefaults: NonNullable<AgentGatewayDeps['discoveryDefaults']>;
}

export async function connectAgents(deps: ConnectAgentsDeps): Promise<ConnectedAgents> {
  const { config, cluster, db, clock, logger, events, refusals, writeVersions } = deps;
  const { bus, registry } = cluster;
  const presence = createPresence({
    store: createAssetPresenceStore(db),
    clock,
    events,
    logger,
    nodeId: bus.nodeId,
    lease: registry,
  });
  // The cluster gateway is told of each local readiness change; it exists only after the local gateway.
  const readiness = { changed: (_assetId: string): void => undefined };
  const localGateway = createAgentGateway({
    clock,
    logger,
    events,
    presence,
    metrics: deps.metrics,
    refusals,
    telemetry: deps.telemetry,
    authenticate: createChannelAuthenticator({
      db,
      tlsMode: config.tlsMode,
      trustedProxies: config.trustedProxies,
      logger,
      refusals,
    }),
    heartbeatIntervalS: 30,
    collectIntervalS: deps.collectIntervalS,
    discoveryDefaults: deps.discoveryDefaults,
    // Asset pages show agent.connected, which lives in the gateway: its changes count as writes of assets.
    onReadinessChange: (assetId) => {
      writeVersions?.touch('assets');
      readiness.changed(assetId);
    },
  });
  // State owned by one process (agents' connections, terminals, desktops): one seam (decision 0058).
  const owned = createOwnedStates({ bus, registry, logger });
  owned.start();
  const gateway = createClusterGateway({
    local: localGateway,
    bus: bus,
    registry,
    owned,
    presence,
    logger,
    onRemoteChange: () => {
      writeVersions?.touch('assets');
    },
  });
  readiness.changed = (assetId) => {
    gateway.readinessChanged(assetId);
  };
  await gateway.start();
  // The path every operation on an asset takes to its agent: load, hub-host rule, offline check, errors.
  const agentCalls = createAgentCaller({
    assets: createAssetReads(db),
    gateway,
    clusterDown: () => cluster.bus.shared && !cluster.bus.status().connected,
  });
  return {
    presence,
    localGateway,
    gateway,
    owned,
    agentCalls,
    readinessChanged: (assetId) => {
      readiness.changed(assetId);
    },
  };
}
