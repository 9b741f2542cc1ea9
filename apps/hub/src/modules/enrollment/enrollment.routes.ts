import type { RouteName } from '@svc/protocol';
import { sendError } from '../../http/envelope.js';
import type { Handlers, RawHandler } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import type { EnrollmentService } from './enrollment.service.js';

export function enrollmentRoutes(enrollment: EnrollmentService): Handlers {
  return {
    'enrollment.create': ({ body, ctx }) => enrollment.createToken(ctx, body),
    'enrollment.list': ({ query }) => enrollment.listTokens(pageRequest(query)),
    'enrollment.revoke': ({ params, ctx }) => enrollment.revokeToken(ctx, params.id),
    'agents.rotateCredential': ({ params, ctx }) => enrollment.rotateCredential(ctx, params.id),
    'agents.revokeCredential': ({ params, ctx }) => enrollment.revokeCredential(ctx, params.id),
    enroll: ({ body, ctx }) => enrollment.enroll(ctx, body),
  };
}

/**
 * `GET /api/v1/agent/channel` without a WebSocket upgrade reaches Fastify (upgrades are taken by the server's
 * 'upgrade' listener before it): it answers 400 saying how to connect.
 */
export function agentChannelRawRoutes(): Partial<Record<RouteName, RawHandler>> {
  return {
    'agent.channel': async (request, reply) => {
      return sendError(
        request,
        reply,
        new HubError(
          'validation',
          'This is the agent WebSocket: connect with an Upgrade: websocket request.',
        ),
      );
    },
  };
}
