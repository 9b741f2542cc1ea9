import http from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newId, type ErrorEnvelope } from '@svc/protocol';
import { HubError } from '../platform/hub-error.js';

/**
 * The error envelope, the one shape every refusal has: Fastify replies, upgrade refusals written on the raw
 * socket, the HTTP parser's answers and the plain-HTTP listener of TLS modes. `status` overrides the code's
 * own only where the HTTP parser needs one the catalog has no code for (408, 431).
 */
export function errorEnvelope(requestId: string, error: HubError, status = error.status): ErrorEnvelope {
  return {
    request_id: requestId,
    error: error.code,
    message: error.message,
    status,
    ...(error.details ? { details: error.details } : {}),
  };
}

/** The headers an error answer carries besides the security ones: the error's own and the 401 challenge. */
function errorHeaders(error: HubError): Record<string, string> {
  return {
    ...error.headers,
    ...(error.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {}),
  };
}

export function sendError(request: FastifyRequest, reply: FastifyReply, error: HubError): FastifyReply {
  for (const [name, value] of Object.entries(errorHeaders(error))) void reply.header(name, value);
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(errorEnvelope(request.id, error));
}

export interface RawErrorOptions {
  /** Whether the connection is TLS: HSTS only there. */
  encrypted: boolean;
  status?: number;
}

/**
 * Every header of an error answer written outside Fastify, with the security headers Fastify's onSend hook
 * adds to its own answers (spec 5.3 requires them on all HTTPS responses).
 */
function rawErrorHeaders(error: HubError, body: string, options: RawErrorOptions): Record<string, string> {
  return {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Cache-Control': 'no-store',
    ...(options.encrypted ? { 'Strict-Transport-Security': 'max-age=63072000' } : {}),
    ...errorHeaders(error),
    Connection: 'close',
  };
}

/** A whole HTTP/1.1 error answer as text, for a socket no server response object stands for. */
export function rawErrorResponse(error: HubError, options: RawErrorOptions): string {
  const status = options.status ?? error.status;
  const body = JSON.stringify(errorEnvelope(newId('request'), error, status));
  const head = [`HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}`];
  for (const [name, value] of Object.entries(rawErrorHeaders(error, body, options)))
    head.push(`${name}: ${value}`);
  return `${head.join('\r\n')}\r\n\r\n${body}`;
}

/** The error answer on a server response of a listener that is not Fastify's (the plain-HTTP redirect). */
export function writeRawError(res: http.ServerResponse, error: HubError, options: RawErrorOptions): void {
  const body = JSON.stringify(errorEnvelope(newId('request'), error));
  res.writeHead(error.status, rawErrorHeaders(error, body, options));
  res.end(body);
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
