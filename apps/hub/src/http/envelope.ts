import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorEnvelope } from '@svc/protocol';
import { HubError } from '../platform/hub-error.js';

function errorEnvelope(requestId: string, error: HubError): ErrorEnvelope {
  return {
    request_id: requestId,
    error: error.code,
    message: error.message,
    status: error.status,
    ...(error.details ? { details: error.details } : {}),
  };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: HubError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  if (error.status === 401) void reply.header('WWW-Authenticate', 'Bearer');
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorEnvelope(request.id, error));
}

/** The success envelope, for raw handlers that must also set headers (cookies, redirects). */
export function sendData(
  request: FastifyRequest,
  reply: FastifyReply,
  data: unknown,
  status = 200,
): FastifyReply {
  return reply.code(status).type('application/json; charset=utf-8').send({ request_id: request.id, data });
}
