/**
 * The reference verifier for webhook deliveries (Node): a receiver passes the raw body and the
 * `X-Svc-Timestamp` and `X-Svc-Signature-256` headers, and its secret. The signature is
 * `sha256=` + hex HMAC-SHA256(secret, `<timestamp>.<raw body>`); docs/webhooks.md has a test vector.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface WebhookVerifyInput {
  secret: string;
  /** The `X-Svc-Timestamp` header: the RFC 3339 time the hub signed at. */
  timestamp: string;
  /** The request body exactly as received (bytes or the same text). */
  body: string | Uint8Array;
  /** The `X-Svc-Signature-256` header. */
  signature: string;
  /** Oldest (and furthest in the future) a timestamp may be, in seconds; 300 by default. */
  toleranceS?: number;
  /** The time to judge the timestamp against; the current time by default. */
  now?: Date;
}

export type WebhookVerifyResult =
  | { valid: true }
  | { valid: false; reason: 'malformed_signature' | 'malformed_timestamp' | 'stale_timestamp' | 'mismatch' };

/** The header value the hub sends for this secret, timestamp and body. */
export function webhookSignature(secret: string, timestamp: string, body: string | Uint8Array): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestamp}.`);
  hmac.update(body);
  return `sha256=${hmac.digest('hex')}`;
}

/** Checks a delivery: the signature in constant time, and a timestamp within the tolerance. */
export function verifyWebhookSignature(input: WebhookVerifyInput): WebhookVerifyResult {
  const match = /^sha256=([0-9a-f]{64})$/.exec(input.signature.trim());
  if (!match) return { valid: false, reason: 'malformed_signature' };
  const signedAt = Date.parse(input.timestamp);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(input.timestamp) || Number.isNaN(signedAt)) {
    return { valid: false, reason: 'malformed_timestamp' };
  }
  const toleranceMs = (input.toleranceS ?? 300) * 1000;
  const now = (input.now ?? new Date()).getTime();
  if (Math.abs(now - signedAt) > toleranceMs) return { valid: false, reason: 'stale_timestamp' };
  const expected = Buffer.from(webhookSignature(input.secret, input.timestamp, input.body).slice(7), 'hex');
  const given = Buffer.from(match[1] as string, 'hex');
  return timingSafeEqual(expected, given) ? { valid: true } : { valid: false, reason: 'mismatch' };
}
