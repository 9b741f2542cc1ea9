import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { AlertRuleService } from './alert-rules.service.js';
import type { AlertService } from './alerts.service.js';

export function alertRoutes(alerts: AlertService, rules: AlertRuleService) {
  return {
    'alerts.list': ({ query, ctx }) => alerts.list(ctx.principal, query, pageRequest(query)),
    'alerts.acknowledge': ({ params, ctx }) => alerts.acknowledge(ctx, params.id),
    'alerts.silence': ({ params, body, ctx }) => alerts.silence(ctx, params.id, body),
    'alerts.rules': ({ query, ctx }) => rules.list(ctx.principal, pageRequest(query)),
    'alerts.ruleCreate': ({ body, ctx }) => rules.create(ctx, body),
    'alerts.ruleUpdate': ({ params, body, ctx }) => rules.update(ctx, params.id, body),
    'alerts.ruleDelete': ({ params, ctx }) => rules.remove(ctx, params.id),
  } satisfies Handlers;
}
