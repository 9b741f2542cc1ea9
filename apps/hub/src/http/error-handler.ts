import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { databaseUnavailable, isDatabaseUnreachable } from '../platform/db/unreachable.js';
import { HubError } from '../platform/hub-error.js';
import { sendError } from './envelope.js';
import { describeValidation } from './validation.js';

/** Fastify's own errors, by code, mapped to the catalog. */
const fastifyCodes: Record<string, HubError['code']> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'validation',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'validation',
  FST_ERR_CTP_INVALID_JSON_BODY: 'validation',
};

export function toHubError(error: unknown): HubError | null {
  if (error instanceof HubError) return error;
  const e = error as Partial<FastifyError> & { validation?: unknown; validationContext?: string };
  if (Array.isArray(e.validation)) {
    const details = describeValidation(
      e.validation as Parameters<typeof describeValidation>[0],
      e.validationContext,
    );
    const first = details[0];
    return new HubError(
      'validation',
      first ? `${first.field} ${first.problem}` : 'The request is not valid.',
      { details },
    );
  }
  const mapped = e.code ? fastifyCodes[e.code] : undefined;
  if (mapped) {
    const message =
      mapped === 'validation' ? `The body is not valid JSON: ${e.message ?? ''}`.trim() : undefined;
    return new HubError(mapped, message);
  }
  // A JSON syntax error from the body parser has statusCode 400 and no code of ours.
  if (e.statusCode === 400 && error instanceof SyntaxError)
    return new HubError('validation', 'The body is not valid JSON.');
  // PostgreSQL restarting or down is not a defect: the client is told to retry.
  if (isDatabaseUnreachable(error)) return databaseUnavailable();
  return null;
}

export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const known = toHubError(error);
    if (known) {
      if (known.status >= 500) request.log.error({ err: error }, 'request failed');
      return sendError(request, reply, known);
    }
    request.log.error({ err: error }, 'unexpected error');
    return sendError(request, reply, new HubError('internal_error'));
  });
}
