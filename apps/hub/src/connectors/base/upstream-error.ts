/**
 * What went wrong talking to an upstream, said so a person can act on it: the upstream's own status and reason,
 * or which guard refused. Never carries credentials (messages are built from status lines, bodies' `message`
 * fields and our own words, not from the request). The hub answers it as 502 `upstream_error`.
 */
import { HubError } from '../../platform/hub-error.js';

/** @public */
export const upstreamFailures = [
  /** The upstream answered with an error status. */
  'http',
  /** No answer within the connector's timeout. */
  'timeout',
  /** The answer did not match the upstream's documented shape (or was not JSON). */
  'malformed',
  /** The egress guard refused the address, scheme or name. */
  'refused',
  /** The certificate did not pass the connector's TLS mode. */
  'tls',
  /** Connection refused, reset, name not found. */
  'network',
  /** The upstream ran the request, and reported that it failed (a task's exit status). */
  'failed',
  /** The credentials lack a privilege the hub needs (an upstream that silently shows such a token nothing). */
  'permission',
] as const;
export type UpstreamFailure = (typeof upstreamFailures)[number];

const maxReasonLength = 300;

export class UpstreamError extends Error {
  readonly failure: UpstreamFailure;
  /** The HTTP status the upstream answered, when it answered. */
  readonly status: number | null;

  constructor(
    failure: UpstreamFailure,
    reason: string,
    status: number | null = null,
    options?: ErrorOptions,
  ) {
    super(truncateReason(reason), options);
    this.name = 'UpstreamError';
    this.failure = failure;
    this.status = status;
  }

  /** Whether trying the same idempotent read again may help (never for an answer the upstream gave on purpose). */
  get isTransient(): boolean {
    if (this.failure === 'timeout' || this.failure === 'network') return true;
    // 595/596/599 are Proxmox's proxy failures to another node; 502–504 a proxy in front of the upstream.
    return (
      this.failure === 'http' && this.status !== null && [502, 503, 504, 595, 596, 599].includes(this.status)
    );
  }
}

function truncateReason(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > maxReasonLength ? `${oneLine.slice(0, maxReasonLength)}…` : oneLine;
}

/** The 502 a caller sees: which connector, and what its upstream said. */
export function upstreamHubError(connectorName: string, error: UpstreamError): HubError {
  return new HubError('upstream_error', `${connectorName}: ${error.message}`);
}
