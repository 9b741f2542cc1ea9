import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { truncateForLog } from '../platform/logger.js';
import type { RefusalLog } from '../platform/refusal-log.js';

/** Refusals an operator watching for attacks wants to see at the default level. */
const noticedStatuses = new Set([401, 403, 429]);

/** URLs are the client's text: long enough to recognise the route and query, not a way to fill the log. */
export const loggedUrlChars = 512;

/** Query parameters whose values are credentials or one-time codes (OIDC callbacks, tokens in links). */
const secretQueryKey = /token|key|code|state|secret|password|signature|credential|session|ticket/i;

/** The URL as logged: bounded, and the values of credential-like query parameters replaced. */
function urlForLog(url: string): string {
  const cut = truncateForLog(url, loggedUrlChars);
  const q = cut.indexOf('?');
  if (q === -1) return cut;
  const query = cut
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      return secretQueryKey.test(pair.slice(0, eq)) ? `${pair.slice(0, eq)}=[redacted]` : pair;
    })
    .join('&');
  return `${cut.slice(0, q)}?${query}`;
}

/**
 * One log line per answered request, each carrying its request id (`reqId`, also the envelope's
 * `request_id`), in place of Fastify's two ("incoming request", "request completed" at
 * info): at debug level, except refusals of credentials or rate (info) and requests that failed (error). At the
 * default level a busy hub writes nothing per successful request; SVC_LOG_LEVEL=debug shows them all. Mutations
 * are recorded in the audit trail whatever the log level. Refusals need no credential to cause, so they go
 * through the refusal log: a few lines per address a minute, then one summary.
 */
export class HubLogController extends LogController {
  constructor(private readonly refusals: RefusalLog) {
    super();
  }

  override incomingRequest(): void {
    // Logged once, when answered.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method.slice(0, 32),
      url: urlForLog(request.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: request.ip,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else if (noticedStatuses.has(reply.statusCode)) {
      if (this.refusals.admit(request.ip, 'request')) reply.log.info(line, 'request');
    } else reply.log.debug(line, 'request');
  }
}
