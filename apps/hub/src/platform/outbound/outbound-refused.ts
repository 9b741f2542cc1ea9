/**
 * The one error the egress guard raises. Not a HubError: the caller (a webhook delivery, a connector) decides
 * what the user sees, usually `upstream_error`; the reason says which rule refused.
 */
import type { AddressCategory } from './address-policy.js';

export type OutboundRefusedReason =
  'blocked_address' | 'host_not_allowed' | 'insecure_transport' | 'too_many_redirects' | 'dns_failed';

export class OutboundRefused extends Error {
  readonly reason: OutboundRefusedReason;
  /** The host the caller asked for (or a redirect named). */
  readonly host: string;
  /** For `blocked_address`: the address refused and its category, for logs (not for the caller's users). */
  readonly address: string | null;
  readonly category: AddressCategory | null;

  constructor(
    reason: OutboundRefusedReason,
    host: string,
    message: string,
    blocked: { address: string; category: AddressCategory } | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'OutboundRefused';
    this.reason = reason;
    this.host = host;
    this.address = blocked?.address ?? null;
    this.category = blocked?.category ?? null;
  }
}

/** The OutboundRefused behind an error, if any: HTTP and WebSocket stacks may wrap what the dialer threw. */
export function findOutboundRefused(error: unknown): OutboundRefused | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth += 1) {
    if (current instanceof OutboundRefused) return current;
    current = current.cause;
  }
  return null;
}
