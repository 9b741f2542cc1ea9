/**
 * One Web Push message: the payload encrypted for the subscription (RFC 8291, aes128gcm) and signed for the
 * push service with the hub's VAPID key (RFC 8292), by the `web-push` package's request builder; sent through
 * the hub's egress-guarded outbound client like every other notification.
 */
import webpush from 'web-push';
import type { OutboundClient } from '../../platform/outbound/outbound-client.js';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export type PushOutcome = { sent: true } | { sent: false; gone: boolean; error: string };

/** The subject the JWT names (RFC 8292 `sub`): a contact the push service may use. */
const vapidSubject = 'mailto:svc-hub@invalid.example';
/** Seconds a push service keeps an undelivered message for an offline device. */
const messageTtlS = 3600;

export function generateVapidKeys(): VapidKeys {
  return webpush.generateVAPIDKeys();
}

export async function sendWebPush(
  client: OutboundClient,
  vapid: VapidKeys,
  target: PushTarget,
  payload: string,
  options: { urgency: 'normal' | 'high'; signal: AbortSignal },
): Promise<PushOutcome> {
  const details = webpush.generateRequestDetails(
    { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
    payload,
    {
      vapidDetails: { subject: vapidSubject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
      contentEncoding: 'aes128gcm',
      TTL: messageTtlS,
      urgency: options.urgency,
    },
  );
  const headers: Record<string, string> = {};
  // web-push writes TTL and Content-Length as numbers whatever its types say.
  const raw: Record<string, unknown> = details.headers;
  for (const [name, value] of Object.entries(raw)) headers[name.toLowerCase()] = String(value);
  const response = await client.request(details.endpoint, {
    method: 'POST',
    headers,
    body: new Uint8Array(details.body),
    signal: options.signal,
  });
  await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
  if (response.status >= 200 && response.status < 300) return { sent: true };
  // 404 and 410: the subscription expired or was withdrawn; it will never take a message again.
  const gone = response.status === 404 || response.status === 410;
  return { sent: false, gone, error: `push service answered ${String(response.status)}` };
}
