import { sendError } from '../../http/envelope.js';
import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import type { EnrollmentService } from '../enrollment/enrollment.service.js';
import type { AgentsListService } from './agents.service.js';

export function agentsRoutes(deps: {
  agents: AgentsListService;
  credentials: Pick<EnrollmentService, 'rotateCredential' | 'revokeCredential'>;
}) {
  const { agents, credentials } = deps;
  return {
    'agents.list': ({ query, ctx }) => agents.list(ctx.principal, pageRequest(query)),
    'agents.rotateCredential': ({ params, ctx }) => credentials.rotateCredential(ctx, params.id),
    'agents.revokeCredential': ({ params, ctx }) => credentials.revokeCredential(ctx, params.id),
  } satisfies Handlers;
}

/**
 * `GET /api/v1/agent/channel` without a WebSocket upgrade reaches Fastify (upgrades are taken by the server's
 * 'upgrade' listener before it): it answers 400 saying how to connect.
 */
export function agentChannelRawRoutes() {
  return {
    'agents.channel': async (request, reply) => {
      return sendError(
        request,
        reply,
        new HubError(
          'validation',
          'This is the agent WebSocket: connect with an Upgrade: websocket request.',
        ),
      );
    },
  } satisfies RawHandlers;
}
