/**
 * Test composition for the modules whose operations run through agents (exec, files, system, power, metrics,
 * the agents list): a real test hub (database, keys, audit, groups) plus an app built with buildApp from
 * those modules' handlers and a FakeGateway, so every request passes the same guard and schemas it will in
 * the wired hub.
 */
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach } from 'vitest';
import type { TestHub, TestHubOptions } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { createAgentCaller } from '../agents/agent-call.js';
import { createAssetReads } from '../modules/assets/asset-reads.service.js';
import { buildApp } from '../app.js';
import { createIdempotencyStore } from '../platform/idempotency.js';
import { createTransportCheck } from '../http/transport-security.js';
import { createInProcessEventBus, type HubEvent } from '../platform/event-bus.js';
import { silentLogger } from '../platform/logger.js';
import { agentsRoutes } from '../modules/agents/agents.routes.js';
import { createAgentsListService } from '../modules/agents/agents.service.js';
import { createExecModule } from '../modules/exec/exec.module.js';
import { createFilesModule } from '../modules/files/files.module.js';
import { createActionsModule } from '../modules/actions/actions.module.js';
import { createBulkModule } from '../modules/bulk/bulk.module.js';
import { createSchedulesModule } from '../modules/schedules/schedules.module.js';
import type { Scheduler } from '../modules/schedules/scheduler.js';
import { metricsRoutes } from '../modules/metrics/metrics.routes.js';
import { createMetricsService } from '../modules/metrics/metrics.service.js';
import { createPowerModule } from '../modules/power/power.module.js';
import type { PowerServiceDeps } from '../modules/power/power.service.js';
import { createSystemModule } from '../modules/system/system.module.js';
import { createContainersModule } from '../modules/containers/containers.module.js';
import { createDiscoveryModule } from '../modules/discovery/discovery.module.js';
import { createDependenciesModule } from '../modules/dependencies/dependencies.module.js';
import type { DiscoveryServiceDeps } from '../modules/discovery/discovery.service.js';
import { defaultOutboundPolicy } from '../platform/outbound/address-policy.js';
import { FakeGateway } from './fake-gateway.js';
import { createUpdatesModule } from '../modules/updates/updates.module.js';
import type { UpdateRunner } from '../modules/updates/update-runner.js';
import type { UpdateReporter } from '../modules/updates/update-reporter.js';

interface OperationsResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  json: Record<string, unknown> & { data?: unknown; error?: string; message?: string; meta?: unknown };
  body: Buffer;
}

export interface OperationsApp {
  gateway: FakeGateway;
  events: HubEvent[];
  app: FastifyInstance;
  /** The schedules' runner, not started: tests move the clock and call `runDue()`. */
  scheduler: Scheduler;
  /** Update runs' runner and the reports' loop, not started: tests call `runDue()` and `idle()`. */
  updates: { runner: UpdateRunner; reporter: UpdateReporter };
  request(
    method: string,
    url: string,
    options?: {
      key?: string;
      body?: unknown;
      rawBody?: string;
      accept?: string;
      headers?: Record<string, string>;
    },
  ): Promise<OperationsResponse>;
  /** Gives an asset a last-seen time (as the gateway's presence does) and marks it an agent asset. */
  setLastSeen(assetId: string, iso: string | null): Promise<void>;
  close(): Promise<void>;
}

async function startOperationsApp(
  t: TestHub,
  options: {
    wolBroadcast?: string;
    /** stdout + stderr bytes a fan-out may hold (lowered to test the budget). */
    execResultBudgetBytes?: number;
    sendWakePacket?: PowerServiceDeps['sendPacket'];
    /** Discovery's settings and egress policy (default: the fleet defaults, the default policy). */
    discovery?: Partial<Pick<DiscoveryServiceDeps, 'defaults' | 'outboundPolicy' | 'lanScan'>>;
  } = {},
): Promise<OperationsApp> {
  const db = t.hub.database.db;
  const gateway = new FakeGateway(() => t.clock.now());
  const bus = createInProcessEventBus({ clock: t.clock, validate: true });
  const events: HubEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const agents = createAgentCaller({ assets: createAssetReads(db), gateway });
  const operations = { db, audit: t.hub.services.audit, agents, events: bus };
  const exec = createExecModule({
    ...operations,
    groups: t.hub.services.groups,
    ...(options.execResultBudgetBytes !== undefined
      ? { resultBudgetBytes: options.execResultBudgetBytes }
      : {}),
  });
  const files = createFilesModule(operations);
  const system = createSystemModule(operations);
  const containers = createContainersModule({ ...operations, gateway, inventoryTimeoutMs: 300 });
  const dependencies = createDependenciesModule({
    db,
    clock: t.clock,
    audit: t.hub.services.audit,
    logger: silentLogger,
    assets: t.hub.services.assets,
    containers: containers.services.containers,
  });
  const discovery = createDiscoveryModule({
    db,
    clock: t.clock,
    audit: t.hub.services.audit,
    events: bus,
    gateway,
    assets: t.hub.services.assets,
    defaults: () => ({ container: true, proxy_api: true, port_scan: true, lan_scan: false }),
    outboundPolicy: () => defaultOutboundPolicy,
    ...options.discovery,
  });
  const power = createPowerModule({
    ...operations,
    ...(options.wolBroadcast !== undefined ? { wolBroadcast: options.wolBroadcast } : {}),
    ...(options.sendWakePacket ? { sendPacket: options.sendWakePacket } : {}),
  });
  const automation = {
    db,
    clock: t.clock,
    audit: t.hub.services.audit,
    events: bus,
    assets: agents.assets,
    groups: t.hub.services.groups,
    exec: exec.services.exec,
  };
  const actions = createActionsModule({ ...automation, schedules: () => schedules.services.schedules });
  const schedules = createSchedulesModule({
    ...automation,
    actions: actions.services.actions,
    keys: t.hub.services.apiKeys,
    users: t.hub.services.users,
    maintenance: t.hub.services.maintenance,
    logger: silentLogger,
  });
  const updates = createUpdatesModule({
    ...operations,
    clock: t.clock,
    groups: t.hub.services.groups,
    maintenance: t.hub.services.maintenance,
    keys: t.hub.services.apiKeys,
    users: t.hub.services.users,
    logger: silentLogger,
    checkHours: () => 6,
  });
  const bulk = createBulkModule({
    ...operations,
    groups: t.hub.services.groups,
    system: system.services.system,
  });
  const metrics = createMetricsService({
    db,
    dialect: t.hub.database.dialect,
    clock: t.clock,
    gateway,
    assets: t.hub.services.assets,
  });
  const agentsList = createAgentsListService({ assets: t.hub.services.assets, gateway });
  const handlers = {
    ...exec.handlers,
    ...files.handlers,
    ...system.handlers,
    ...containers.handlers,
    ...dependencies.handlers,
    ...discovery.handlers,
    ...power.handlers,
    ...actions.handlers,
    ...schedules.handlers,
    ...bulk.handlers,
    ...updates.handlers,
    ...metricsRoutes(metrics),
    ...agentsRoutes({ agents: agentsList, credentials: t.hub.services.enrollment }),
  };
  const rawHandlers = { ...exec.rawHandlers, ...files.rawHandlers };
  const app = buildApp({
    logger: silentLogger,
    isSecure: createTransportCheck({ tlsMode: 'disabled', trustedProxies: [] }),
    trustedProxies: [],
    rateLimit: { enabled: false, perIpPerMinute: 1, perKeyPerMinute: 1 },
    verifyApiKey: (text) => t.hub.services.apiKeys.authenticate(text),
    handlers,
    rawHandlers,
    idempotency: createIdempotencyStore(db, t.clock),
  });
  await app.ready();

  return {
    gateway,
    events,
    app,
    scheduler: schedules.services.scheduler,
    updates: { runner: updates.services.runner, reporter: updates.services.reporter },
    async request(method, url, o = {}) {
      const headers: Record<string, string> = {
        ...o.headers,
        authorization: `Bearer ${o.key ?? t.ownerKey}`,
      };
      if (o.accept !== undefined) headers.accept = o.accept;
      let payload: string | undefined;
      if (o.rawBody !== undefined) payload = o.rawBody;
      else if (o.body !== undefined) payload = JSON.stringify(o.body);
      if (payload !== undefined) headers['content-type'] = 'application/json';
      const response = await app.inject({
        method: method as 'GET',
        url,
        headers,
        ...(payload !== undefined ? { payload } : {}),
        remoteAddress: '127.0.0.1',
      });
      let json: OperationsResponse['json'] = {};
      if ((response.headers['content-type'] ?? '').startsWith('application/json')) {
        json = JSON.parse(response.body) as OperationsResponse['json'];
      }
      return { status: response.statusCode, headers: response.headers, json, body: response.rawPayload };
    },
    async setLastSeen(assetId, iso) {
      await db
        .updateTable('assets')
        .set({ last_seen_at: iso, source: 'agent', status: 'offline' })
        .where('id', '=', assetId)
        .execute();
    },
    async close() {
      await schedules.services.scheduler.close();
      await updates.services.runner.close();
      await app.close();
    },
  };
}

type AppOptions = Parameters<typeof startOperationsApp>[1];

/**
 * One test hub per describe block (started once: keys, assets and audit rows of earlier tests stay, so
 * tests make their own assets) and a fresh operations app with a fresh FakeGateway per test.
 */
export function useOperations(
  hubOptions: TestHubOptions = {},
  appOptions: AppOptions | (() => AppOptions) = {},
): () => { t: TestHub; ops: OperationsApp } {
  const hub = useTestHub(hubOptions);
  let ops: OperationsApp | undefined;
  beforeEach(async () => {
    ops = await startOperationsApp(hub(), typeof appOptions === 'function' ? appOptions() : appOptions);
  });
  afterEach(async () => {
    await ops?.close();
    ops = undefined;
  });
  return () => {
    if (!ops) throw new Error('hub not started');
    return { t: hub(), ops };
  };
}
