/**
 * A Web Push service on loopback, for tests of the hub's push alerts. It speaks the protocol a browser's push
 * service does: a message is a POST to a subscription's endpoint, with a VAPID `Authorization` (RFC 8292: an
 * ES256 JWT whose `aud` is this service's origin, checked against the key `k`) and a body encrypted for the
 * subscription (RFC 8291, `Content-Encoding: aes128gcm`), which this fake decrypts with the subscription's
 * private key: the test reads what the device would have read. It answers 201, 410 for a subscription the test
 * expired, and 400/401 for a message that breaks the protocol (kept in `refusals`).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakePushSubscription {
  id: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

export interface PushedMessage {
  subscriptionId: string;
  /** The decrypted payload. */
  payload: string;
  ttl: string | null;
  urgency: string | null;
  /** The VAPID public key the JWT was signed with (base64url). */
  vapidKey: string;
}

export interface FakePushService {
  origin: string;
  /** A new subscription, as `PushManager.subscribe()` would give a browser. */
  subscribe(): FakePushSubscription;
  /** Marks a subscription expired: its next message is answered 410 Gone. */
  expire(id: string): void;
  messages: PushedMessage[];
  refusals: { subscriptionId: string; status: number; reason: string }[];
  /** Resolves when `count` messages arrived, or rejects after `timeoutMs`. */
  waitForMessages(count: number, timeoutMs?: number): Promise<PushedMessage[]>;
  close(): Promise<void>;
}

interface Held {
  ecdh: crypto.ECDH;
  publicKey: Buffer;
  auth: Buffer;
  expired: boolean;
}

const b64u = (buffer: Buffer) => buffer.toString('base64url');

function publicKeyOfPoint(point: Buffer): crypto.KeyObject {
  return crypto.createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64u(point.subarray(1, 33)), y: b64u(point.subarray(33, 65)) },
    format: 'jwk',
  });
}

/** Checks `vapid t=<jwt>, k=<key>` for this origin; returns the key or why it is refused. */
function checkVapid(
  header: string | undefined,
  origin: string,
  now: number,
): { key: string } | { reason: string } {
  const match = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match?.[1] || !match[2]) return { reason: 'no VAPID authorization' };
  const [jwt, key] = [match[1], match[2]];
  const [head, body, signature] = jwt.split('.');
  if (!head || !body || !signature) return { reason: 'the JWT is malformed' };
  const header64 = JSON.parse(Buffer.from(head, 'base64url').toString('utf8')) as { alg?: string };
  if (header64.alg !== 'ES256') return { reason: 'the JWT is not ES256' };
  const point = Buffer.from(key, 'base64url');
  if (point.length !== 65 || point[0] !== 4) return { reason: 'k is not an uncompressed P-256 point' };
  const valid = crypto.verify(
    'sha256',
    Buffer.from(`${head}.${body}`),
    { key: publicKeyOfPoint(point), dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!valid) return { reason: 'the JWT signature does not verify with k' };
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
    aud?: string;
    exp?: number;
    sub?: string;
  };
  if (claims.aud !== origin) return { reason: `aud ${String(claims.aud)} is not ${origin}` };
  const seconds = now / 1000;
  if (typeof claims.exp !== 'number' || claims.exp < seconds || claims.exp > seconds + 24 * 3600) {
    return { reason: 'exp is not within the next 24 hours' };
  }
  if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) {
    return { reason: 'sub is not a mailto: or https: contact' };
  }
  return { key };
}

/** RFC 8291 with RFC 8188's aes128gcm: one record, decrypted with the subscription's private key. */
function decrypt(held: Held, body: Buffer): string {
  const salt = body.subarray(0, 16);
  const idLength = body[20] ?? 0;
  const senderPublic = body.subarray(21, 21 + idLength);
  const ciphertext = body.subarray(21 + idLength);
  const shared = held.ecdh.computeSecret(senderPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), held.publicKey, senderPublic]);
  const ikm = Buffer.from(crypto.hkdfSync('sha256', shared, held.auth, keyInfo, 32));
  const cek = Buffer.from(
    crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16),
  );
  const nonce = Buffer.from(
    crypto.hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12),
  );
  const decipher = crypto.createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([
    decipher.update(ciphertext.subarray(0, ciphertext.length - 16)),
    decipher.final(),
  ]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end -= 1;
  if (padded[end] !== 2) throw new Error('the last record does not end with the 0x02 delimiter');
  return padded.subarray(0, end).toString('utf8');
}

export async function startFakePushService(): Promise<FakePushService> {
  const held = new Map<string, Held>();
  const messages: PushedMessage[] = [];
  const refusals: FakePushService['refusals'] = [];
  const waiters = new Set<() => void>();
  let origin = '';

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= 8192) chunks.push(chunk);
    });
    request.on('end', () => {
      const id = /^\/push\/([A-Za-z0-9_-]+)$/.exec(request.url ?? '')?.[1] ?? '';
      const subscription = held.get(id);
      const refuse = (status: number, reason: string) => {
        refusals.push({ subscriptionId: id, status, reason });
        response.writeHead(status).end(reason);
      };
      if (request.method !== 'POST' || !subscription) {
        refuse(404, 'no such subscription');
        return;
      }
      if (subscription.expired) {
        refuse(410, 'subscription expired');
        return;
      }
      const vapid = checkVapid(request.headers.authorization, origin, Date.now());
      if ('reason' in vapid) {
        refuse(401, vapid.reason);
        return;
      }
      if (request.headers['content-encoding'] !== 'aes128gcm') {
        refuse(400, 'not aes128gcm');
        return;
      }
      if (size > 4096) {
        refuse(413, 'payload over 4096 bytes');
        return;
      }
      let payload: string;
      try {
        payload = decrypt(subscription, Buffer.concat(chunks));
      } catch (error) {
        refuse(400, `does not decrypt: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
      messages.push({
        subscriptionId: id,
        payload,
        ttl: typeof request.headers.ttl === 'string' ? request.headers.ttl : null,
        urgency: typeof request.headers.urgency === 'string' ? request.headers.urgency : null,
        vapidKey: vapid.key,
      });
      for (const wake of waiters) wake();
      response.writeHead(201, { location: `${origin}/messages/${String(messages.length)}` }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;

  return {
    origin,
    messages,
    refusals,
    subscribe() {
      const ecdh = crypto.createECDH('prime256v1');
      const publicKey = ecdh.generateKeys();
      const auth = crypto.randomBytes(16);
      const id = b64u(crypto.randomBytes(12));
      held.set(id, { ecdh, publicKey, auth, expired: false });
      return { id, endpoint: `${origin}/push/${id}`, keys: { p256dh: b64u(publicKey), auth: b64u(auth) } };
    },
    expire(id) {
      const subscription = held.get(id);
      if (subscription) subscription.expired = true;
    },
    waitForMessages(count, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (messages.length < count) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve([...messages]);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `${String(messages.length)} of ${String(count)} push messages after ${String(timeoutMs)} ms`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
