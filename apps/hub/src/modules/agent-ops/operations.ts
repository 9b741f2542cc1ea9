/**
 * The asset operations that run through agents (exec, files, system, power), metric queries and the agents
 * list, built from explicit dependencies: hub.ts constructs them once and merges the route handlers.
 */
import type { RouteName } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { AgentGateway } from '../../agents/agent-gateway.js';
import type { Handlers, RawHandler } from '../../http/register-routes.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { agentsListRoutes } from '../agents-list/agents-list.routes.js';
import {
  createAgentsListService,
  type AgentsListDeps,
  type AgentsListService,
} from '../agents-list/agents-list.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { execRawRoutes, execRoutes } from '../exec/exec.routes.js';
import { createExecService, type ExecService } from '../exec/exec.service.js';
import { filesRawRoutes, filesRoutes } from '../files/files.routes.js';
import { createFilesService, type FilesService } from '../files/files.service.js';
import type { GroupService } from '../groups/groups.service.js';
import { metricsRoutes } from '../metrics/metrics.routes.js';
import { createMetricsService, type MetricsService } from '../metrics/metrics.service.js';
import { powerRoutes } from '../power/power.routes.js';
import { createPowerService, type PowerService, type PowerServiceDeps } from '../power/power.service.js';
import { systemRoutes } from '../system/system.routes.js';
import { createSystemService, type SystemService } from '../system/system.service.js';
import { createAgentCaller, type AgentCaller } from './agent-call.js';

export interface OperationsDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  groups: Pick<GroupService, 'members'>;
  gateway: AgentGateway;
  events: EventBus;
  /** `host:port` for magic packets the hub sends itself (SVC_WOL_BROADCAST). */
  wolBroadcast?: string;
  /** Replaces the UDP sender (tests observe packets this way only if they do not listen on loopback). */
  sendWakePacket?: PowerServiceDeps['sendPacket'];
  execConcurrency?: number;
  /** Per agent, what the metrics budget took and dropped (shown on /hub/agents). */
  metricsCounts?: AgentsListDeps['metricsCounts'];
  /** stdout + stderr bytes a fan-out may hold (tests lower it). */
  execResultBudgetBytes?: number;
}

export interface OperationServices {
  agents: AgentCaller;
  exec: ExecService;
  files: FilesService;
  system: SystemService;
  power: PowerService;
  metrics: MetricsService;
  agentsList: AgentsListService;
}

export function createOperationServices(deps: OperationsDeps): OperationServices {
  const { db, clock, audit, groups, gateway, events } = deps;
  const agents = createAgentCaller({ db, gateway });
  return {
    agents,
    exec: createExecService({
      db,
      audit,
      agents,
      groups,
      events,
      ...(deps.execConcurrency !== undefined ? { concurrency: deps.execConcurrency } : {}),
      ...(deps.execResultBudgetBytes !== undefined ? { resultBudgetBytes: deps.execResultBudgetBytes } : {}),
    }),
    files: createFilesService({ db, audit, agents }),
    system: createSystemService({ db, audit, agents, events }),
    power: createPowerService({
      db,
      audit,
      events,
      agents,
      ...(deps.wolBroadcast !== undefined ? { wolBroadcast: deps.wolBroadcast } : {}),
      ...(deps.sendWakePacket ? { sendPacket: deps.sendWakePacket } : {}),
    }),
    metrics: createMetricsService({ db, clock, gateway }),
    agentsList: createAgentsListService({
      db,
      gateway,
      ...(deps.metricsCounts ? { metricsCounts: deps.metricsCounts } : {}),
    }),
  };
}

export function operationsRoutes(services: OperationServices): {
  handlers: Handlers;
  rawHandlers: Partial<Record<RouteName, RawHandler>>;
} {
  return {
    handlers: {
      ...execRoutes(services.exec),
      ...filesRoutes(services.files),
      ...systemRoutes(services.system),
      ...powerRoutes(services.power),
      ...metricsRoutes(services.metrics),
      ...agentsListRoutes(services.agentsList),
    },
    rawHandlers: {
      ...filesRawRoutes(services.files),
      ...execRawRoutes(services.exec),
    },
  };
}
