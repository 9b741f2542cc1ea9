import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** Refusals an operator watching for attacks wants to see at the default level. */
const noticedStatuses = new Set([401, 403, 429]);

/**
 * One log line per answered request, in place of Fastify's two ("incoming request", "request completed" at
 * info): at debug level, except refusals of credentials or rate (info) and requests that failed (error). At the
 * default level a busy hub writes nothing per successful request; SVC_LOG_LEVEL=debug shows them all. Mutations
 * are recorded in the audit trail whatever the log level.
 */
export class HubLogController extends LogController {
  override incomingRequest(): void {
    // Logged once, when answered.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: request.url,
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (noticedStatuses.has(reply.statusCode)) reply.log.info(line, 'request');
    else reply.log.debug(line, 'request');
  }
}
