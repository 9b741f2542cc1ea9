/**
 * Composition: opens storage, builds every service and the HTTP app from a config. main.ts and the test
 * harness both start the hub through here, so tests run the same wiring users do.
 */
import type { FastifyInstance } from 'fastify';
import type { HubConfig } from './config/env.js';
import { buildApp } from './app.js';
import { buildOpenApiDocument } from './http/openapi.js';
import type { Handlers } from './http/register-routes.js';
import { systemClock, type Clock } from './platform/clock.js';
import { openDatabase, type DatabaseOptions, type HubDatabase } from './platform/db/database.js';
import type { Logger } from './platform/logger.js';
import { apiKeyRoutes } from './modules/api-keys/api-keys.routes.js';
import { createApiKeyService, type ApiKeyService } from './modules/api-keys/api-keys.service.js';
import { assetRoutes } from './modules/assets/assets.routes.js';
import { createAssetService, type AssetService } from './modules/assets/assets.service.js';
import { auditRoutes } from './modules/audit/audit.routes.js';
import { createAuditService, type AuditService } from './modules/audit/audit.service.js';
import { groupRoutes } from './modules/groups/groups.routes.js';
import { createGroupService, type GroupService } from './modules/groups/groups.service.js';
import { hubRoutes } from './modules/hub/hub.routes.js';
import { createHubStatusService } from './modules/hub/hub-status.service.js';
import { searchRoutes } from './modules/search/search.routes.js';
import { createSearchService } from './modules/search/search.service.js';
import { bootstrapOwner, type OwnerBootstrapResult } from './modules/users/owner-bootstrap.js';
import { userRoutes } from './modules/users/users.routes.js';
import { createUserService, type UserService } from './modules/users/users.service.js';
import { whoamiRoutes } from './modules/whoami/whoami.routes.js';
import { createWhoamiService } from './modules/whoami/whoami.service.js';

export interface HubOptions {
  config: HubConfig;
  logger: Logger;
  clock?: Clock;
  database?: Partial<DatabaseOptions>;
}

export interface Services {
  audit: AuditService;
  apiKeys: ApiKeyService;
  assets: AssetService;
  groups: GroupService;
  users: UserService;
}

export interface Hub {
  app: FastifyInstance;
  database: HubDatabase;
  services: Services;
  owner: OwnerBootstrapResult;
  close(): Promise<void>;
}

export async function createHub(options: HubOptions): Promise<Hub> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...options.database,
  });
  const { db } = database;
  const startedAt = clock.now();

  const audit = createAuditService({ db, clock });
  const apiKeys = createApiKeyService({ db, clock, audit });
  const assets = createAssetService({ db, clock, audit });
  const groups = createGroupService({ db, clock, audit });
  const users = createUserService({ db, clock, audit, bcryptCost: config.bcryptCost });
  const search = createSearchService({ db });
  const whoami = createWhoamiService({ db });
  const hubStatus = createHubStatusService({
    db,
    clock,
    dialect: database.dialect,
    startedAt,
    connectedAgents: () => 0,
  });

  const owner = await bootstrapOwner({
    db,
    clock,
    audit,
    apiKeys,
    logger,
    dataDir: config.dataDir,
    bcryptCost: config.bcryptCost,
  });

  const handlers: Handlers = {
    ...whoamiRoutes(whoami),
    ...apiKeyRoutes(apiKeys),
    ...assetRoutes(assets),
    ...groupRoutes(groups),
    ...searchRoutes(search),
    ...auditRoutes(audit),
    ...hubRoutes(hubStatus),
    ...userRoutes(users),
  };
  const openapi = JSON.stringify(buildOpenApiDocument());
  const app = buildApp({
    logger,
    tlsMode: config.tlsMode,
    trustedProxies: config.trustedProxies,
    rateLimit: config.rateLimit,
    verifyApiKey: (text) => apiKeys.authenticate(text),
    handlers,
    rawHandlers: {
      openapi: async (_request, reply) => reply.type('application/json; charset=utf-8').send(openapi),
    },
  });

  return {
    app,
    database,
    services: { audit, apiKeys, assets, groups, users },
    owner,
    async close() {
      await app.close();
      await database.close();
    },
  };
}
