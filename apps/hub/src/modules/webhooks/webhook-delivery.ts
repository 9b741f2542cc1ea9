/**
 * One delivery attempt: the body `{id, type, ts, data}` signed with the webhook's secret and sent through the
 * egress-guarded client (the guard judges the URL again, and every redirect). What the receiver answers is
 * turned into an AttemptResult for the queue.
 */
import { createHmac } from 'node:crypto';
import { findOutboundRefused } from '../../platform/outbound/outbound-refused.js';
import type { OutboundClient } from '../../platform/outbound/outbound-client.js';
import type { AttemptResult } from './delivery-queue.js';

export interface SignedDelivery {
  id: string;
  type: string;
  /** RFC 3339: the body's `ts` and the `X-Svc-Timestamp` header. */
  ts: string;
  /** The exact body sent, which the signature covers. */
  body: string;
}

/** `sha256=` + hex HMAC-SHA256(secret, `<timestamp>.<raw body>`) (ARCHITECTURE §3; docs/webhooks.md). */
function signDelivery(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export function deliveryBody(id: string, type: string, ts: string, data: unknown): string {
  return JSON.stringify({ id, type, ts, data });
}

const retryStatuses = new Set([408, 425, 429]);

export async function attemptDelivery(
  client: OutboundClient,
  target: { url: string; secret: string },
  delivery: SignedDelivery,
  signal: AbortSignal,
): Promise<AttemptResult> {
  try {
    const response = await client.request(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'svc-hub-webhooks',
        'x-svc-event': delivery.type,
        'x-svc-delivery': delivery.id,
        'x-svc-timestamp': delivery.ts,
        'x-svc-signature-256': signDelivery(target.secret, delivery.ts, delivery.body),
      },
      body: delivery.body,
      signal,
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return {
      ok: false,
      status: response.status,
      error: `receiver answered ${String(response.status)}`,
      retry: response.status >= 500 || retryStatuses.has(response.status),
    };
  } catch (error) {
    const refused = findOutboundRefused(error);
    if (refused)
      return {
        ok: false,
        status: null,
        error: `refused by the egress guard: ${refused.message}`,
        retry: false,
      };
    if (signal.aborted) return { ok: false, status: null, error: 'timed out', retry: true };
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, status: null, error: `connection failed: ${message}`, retry: true };
  }
}
