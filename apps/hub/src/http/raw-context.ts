import type { FastifyRequest } from 'fastify';
import { HubError } from '../platform/hub-error.js';
import type { ActionContext } from '../access/principal.js';

/** The context of a raw route: raw routes run behind the same guard, so a principal is always there. */
export function rawContext(request: FastifyRequest): ActionContext {
  if (!request.principal) throw new HubError('unauthorized');
  return {
    principal: request.principal,
    requestId: request.id,
    ip: request.ip,
    ...(request.via ? { via: request.via } : {}),
  };
}
