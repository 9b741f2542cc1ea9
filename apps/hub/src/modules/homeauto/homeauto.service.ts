/**
 * Home Assistant entities and service calls, through the Home Assistant asset's connector. A service call is
 * an action: refused while `policy.connector_enabled` is off, checked (device domains only, each entity of
 * the service's domain and known to Home Assistant, no retargeting data), and audited before it is sent
 * (decision 0024).
 */
import type { HomeautoEntity, HomeautoServiceCall, HomeautoServiceResult } from '@svc/protocol';
import type { ActionContext, Principal } from '../../access/principal.js';
import {
  callHomeautoService,
  homeautoEntities,
  homeautoEntity,
  unknownHomeautoEntities,
} from '../../connectors/homeauto/homeauto.connector.js';
import { serviceCallProblem } from '../../connectors/homeauto/homeauto.mapping.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ConnectorService } from '../connectors/connectors.service.js';

export interface HomeautoService {
  entities(
    principal: Principal,
    assetId: string,
    filter: { domain?: string | undefined },
    page: PageRequest,
  ): Promise<Page<HomeautoEntity>>;
  entity(principal: Principal, assetId: string, entityId: string): Promise<HomeautoEntity>;
  callService(
    ctx: ActionContext,
    assetId: string,
    domain: string,
    service: string,
    call: HomeautoServiceCall,
  ): Promise<HomeautoServiceResult>;
}

export function createHomeautoService(deps: {
  connectors: ConnectorService;
  audit: AuditService;
}): HomeautoService {
  const { connectors, audit } = deps;
  return {
    async entities(principal, assetId, filter, page) {
      const { connector } = await connectors.resolveAsset(principal, assetId, 'homeauto');
      const all = await connectors.call(connector, (ctx) => homeautoEntities(ctx, filter.domain));
      const { offset, limit } = pageWindow(page);
      return toPage(all.slice(offset, offset + limit), all.length, page);
    },
    async entity(principal, assetId, entityId) {
      const { connector } = await connectors.resolveAsset(principal, assetId, 'homeauto');
      const entity = await connectors.call(connector, (ctx) => homeautoEntity(ctx, entityId));
      if (!entity) throw new HubError('not_found', `no entity ${entityId}`);
      return entity;
    },
    async callService(ctx, assetId, domain, service, call) {
      const { asset, connector } = await connectors.resolveAsset(ctx.principal, assetId, 'homeauto');
      const problem = serviceCallProblem(domain, call.entity_id, call.data);
      if (problem) throw validationError(problem.field, problem.problem);
      connectors.assertActionsAllowed();
      const unknown = await connectors.call(connector, (upstream) =>
        unknownHomeautoEntities(upstream, call.entity_id),
      );
      if (unknown.length > 0) {
        throw new HubError(
          'not_found',
          `Home Assistant has no entity ${unknown.join(', ')}: check the id (Developer tools → States)`,
        );
      }
      const name = `${domain}.${service}`;
      await audit.recordIntent(ctx, [
        {
          action: 'homeauto.service_call',
          targetType: 'asset',
          targetId: asset.id,
          assetId: asset.id,
          detail: { service: name, entity_id: call.entity_id, data_keys: Object.keys(call.data ?? {}) },
        },
      ]);
      const entities = await connectors.call(connector, (upstream) =>
        callHomeautoService(upstream, domain, service, call.entity_id, call.data ?? {}),
      );
      return { service: name, entities };
    },
  };
}
