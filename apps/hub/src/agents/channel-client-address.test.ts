/**
 * One client address for the HTTP API and the agent channel behind trusted proxies: an attacker who writes
 * its own X-Forwarded-For values in front of the proxies' must be counted and logged at the same address by
 * both, the one proxy-addr finds (the first untrusted hop from the right), never at a spoofed value nor at a
 * trusted proxy's own address (which would put every client behind that proxy in one failure bucket).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { agentChannelPath } from '@svc/protocol';
import { buildApp } from '../app.js';
import { localRateLimiters, type RateLimiterFactory } from '../http/rate-limit.js';
import { createTransportCheck } from '../http/transport-security.js';
import { refuseUpgrade } from '../http/upgrade.js';
import type { Database } from '../platform/db/schema.js';
import { HubError } from '../platform/hub-error.js';
import { createLogger } from '../platform/logger.js';
import { createRefusalLog } from '../platform/refusal-log.js';
import { createChannelAuthenticator } from './channel-auth.js';
import { createChannelFailureLimiter, type ChannelFailureLimiter } from './channel-failures.js';

interface LogLine {
  msg: string;
  ip?: string;
  remote_address?: string;
}

interface Seen {
  logs: LogLine[];
  /** Keys the HTTP per-IP limiter was asked about. */
  httpKeys: string[];
  /** Addresses the channel's failure limiter counted. */
  channelKeys: (string | null)[];
}

/** A hub's HTTP app and agent channel on one loopback listener, both behind `trustedProxies`. */
async function startHub(trustedProxies: readonly string[]) {
  const seen: Seen = { logs: [], httpKeys: [], channelKeys: [] };
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      seen.logs.push(JSON.parse(chunk.toString()) as LogLine);
      done();
    },
  });
  const logger = createLogger('info', stream);
  const refusals = createRefusalLog({ logger });
  const recordingLimiters: RateLimiterFactory = (name, perMinute, options) => {
    const limit = localRateLimiters(name, perMinute, options);
    return {
      take(key) {
        if (name === 'api_per_ip') seen.httpKeys.push(key);
        return limit.take(key);
      },
      refund: (key) => {
        limit.refund(key);
      },
      get size() {
        return limit.size;
      },
    };
  };
  const limiter = createChannelFailureLimiter();
  const failures: ChannelFailureLimiter = {
    retryAfterSeconds: (address) => limiter.retryAfterSeconds(address),
    recordFailure(address) {
      seen.channelKeys.push(address);
      limiter.recordFailure(address);
    },
    get size() {
      return limiter.size;
    },
  };
  // A malformed credential is refused before any lookup: the channel never reads this empty database.
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: new SQLite(':memory:') }) });
  const authenticate = createChannelAuthenticator({
    db,
    tlsMode: 'disabled',
    trustedProxies,
    logger,
    refusals,
    failures,
  });
  const app = buildApp({
    logger,
    refusals,
    isSecure: createTransportCheck({ tlsMode: 'disabled', trustedProxies }),
    trustedProxies,
    rateLimit: { enabled: true, perIpPerMinute: 600, perKeyPerMinute: 3000 },
    rateLimiters: recordingLimiters,
    verifyApiKey: () => Promise.resolve(null),
    handlers: {},
    rawHandlers: {},
    publicUpgradeHandlers: {
      'agents.channel': (request, socket) => {
        authenticate(request).then(
          () => {
            refuseUpgrade(socket, new HubError('unauthorized'));
          },
          (error: unknown) => {
            refuseUpgrade(socket, error instanceof HubError ? error : new HubError('internal_error'));
          },
        );
      },
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;

  function send(path: string, headers: Record<string, string>): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path, headers });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('upgrade', (res, socket) => {
        socket.destroy();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  }

  return {
    seen,
    /** A request with a made-up API key, and an agent channel upgrade with a made-up credential. */
    async attack(forwardedFor: string): Promise<{ api: number; channel: number }> {
      const headers = {
        authorization: 'Bearer svc_aaaa_not-a-real-key',
        'x-forwarded-for': forwardedFor,
        'x-forwarded-proto': 'https',
      };
      const api = await send('/api/v2/assets', headers);
      const channel = await send(agentChannelPath, {
        ...headers,
        authorization: 'Bearer not-an-agent-credential',
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      });
      return { api, channel };
    },
    async close() {
      await app.close();
      await db.destroy();
    },
  };
}

let hub: Awaited<ReturnType<typeof startHub>> | null = null;
afterEach(async () => {
  await hub?.close();
  hub = null;
});

describe('client address behind trusted proxies (HTTP API and agent channel)', () => {
  it.each([
    {
      name: 'one trusted proxy',
      trusted: ['127.0.0.1'],
      forwardedFor: '203.0.113.66, 198.51.100.7',
    },
    {
      name: 'two trusted hops',
      trusted: ['127.0.0.1', '10.0.0.2'],
      forwardedFor: '203.0.113.66, 198.51.100.7, 10.0.0.2',
    },
  ])('counts and logs a spoofed chain at the real client for both ($name)', async (c) => {
    hub = await startHub(c.trusted);

    const answers = await hub.attack(c.forwardedFor);

    expect(answers).toEqual({ api: 401, channel: 401 });
    expect(hub.seen.httpKeys).toEqual(['198.51.100.7']);
    expect(hub.seen.channelKeys).toEqual(['198.51.100.7']);
    const httpLine = hub.seen.logs.find((l) => l.msg === 'request');
    const channelLine = hub.seen.logs.find((l) => l.msg === 'agent channel credential refused');
    expect(httpLine?.ip).toBe('198.51.100.7');
    expect(channelLine?.remote_address).toBe('198.51.100.7');
  });
});
