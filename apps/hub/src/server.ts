/**
 * Listening: HTTPS on the HTTPS port with the TLS manager's certificate (swapped live on renewal or upload),
 * and on the HTTP port a small server that sends browsers to HTTPS. A request carrying a credential is never
 * redirected (that would replay it); it gets 403 `https_required`. In `disabled` mode the app itself serves
 * plain HTTP on the HTTP port.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { FastifyServerFactory } from 'fastify';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { HubConfig } from './config/env.js';
import { writeRawError } from './http/envelope.js';
import { refuseUpgrade } from './http/upgrade.js';
import type { Hub } from './hub.js';
import { HubError } from './platform/hub-error.js';
import type { TlsManager } from './platform/tls/tls-manager.js';

const renewalCheckMs = 12 * 60 * 60 * 1000;
/** How often the day-old session ticket keys are looked for (decision 0072): they live a day and up to an hour. */
const ticketKeyCheckMs = 60 * 60 * 1000;

/**
 * How long an idle keep-alive connection stays open: Fastify's own default, which it sets only on servers it
 * creates (plain HTTP here), above the 60–65 s idle timeouts of load balancers (deploy/haproxy), so that a
 * balancer never reuses a connection the hub is closing.
 */
const keepAliveTimeoutMs = 72_000;

const ignoreData = (): void => undefined;

/**
 * Node's HTTP server reads a TLS connection natively, straight into its parser. When a request arrives while
 * the answer before it is still being written (a pipelining client, or a keep-alive client that sends its
 * next request before the busy hub has seen its last answer flushed), the server pauses the parser; but the
 * TLS layer goes on handing it the records it has already decrypted, the parser fails with HPE_PAUSED and
 * the connection is dropped with both requests (decision 0046). Adding a 'data' listener makes Node read the
 * connection through the stream instead, where pausing holds; the listener itself is removed at once.
 *
 * Reading through the stream costs every request a JavaScript call per chunk (a third of a small answer's
 * throughput), and the native path goes wrong only once the server pauses the connection. So the switch is
 * made then: on the connection's first 'pause', which the server emits synchronously, before the parser
 * takes another record (decision 0071).
 */
function readThroughStreamOncePaused(socket: TLSSocket): void {
  socket.once('pause', () => {
    socket.on('data', ignoreData);
    socket.removeListener('data', ignoreData);
  });
}

/** Fastify's server: HTTPS with the manager's current context, which later changes replace in place. */
export function httpsServerFactory(tls: TlsManager): FastifyServerFactory {
  return (handler) => {
    const context = tls.secureContext();
    if (!context) throw new Error('TLS has no certificate to serve');
    const server = https.createServer(context, handler);
    server.keepAliveTimeout = keepAliveTimeoutMs;
    // After Node's own listener (added by the constructor), which is what attaches the parser.
    server.on('secureConnection', readThroughStreamOncePaused);
    tls.onChange(() => {
      const next = tls.secureContext();
      if (next) server.setSecureContext(next);
    });
    return server;
  };
}

const plain = { encrypted: false };

/**
 * The plain-HTTP listener of TLS modes: redirects browsers, refuses credentials, and refuses every WebSocket
 * upgrade (a WebSocket client does not follow a redirect, and a key in it must not travel in clear again).
 */
function createRedirectServer(httpsPort: number): http.Server {
  const server = http.createServer((req, res) => {
    const hasCredential =
      req.headers.authorization !== undefined || /(^|;\s*)svc_session=/.test(req.headers.cookie ?? '');
    if (hasCredential) {
      writeRawError(
        res,
        new HubError('https_required', `Credentials are accepted only over HTTPS, on port ${httpsPort}.`),
        plain,
      );
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      writeRawError(res, new HubError('https_required', `Use HTTPS on port ${httpsPort}.`), plain);
      return;
    }
    const host = (req.headers.host ?? 'localhost').replace(/:\d+$/, '');
    const target = `https://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}${httpsPort === 443 ? '' : `:${httpsPort}`}${req.url ?? '/'}`;
    res.writeHead(308, { location: target, 'content-length': '0', 'x-content-type-options': 'nosniff' });
    res.end();
  });
  server.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) => {
    refuseUpgrade(
      socket,
      new HubError(
        'https_required',
        `WebSocket upgrades are accepted only over HTTPS, on port ${httpsPort}.`,
      ),
    );
  });
  return server;
}

export interface RunningServers {
  httpsPort: number | null;
  httpPort: number;
  close(): Promise<void>;
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startServers(
  hub: Hub,
  config: Pick<HubConfig, 'host' | 'httpPort' | 'httpsPort' | 'tlsMode'>,
): Promise<RunningServers> {
  if (config.tlsMode === 'disabled') {
    await hub.app.listen({ host: config.host, port: config.httpPort });
    return {
      httpsPort: null,
      httpPort: (hub.app.server.address() as AddressInfo).port,
      close: () => Promise.resolve(),
    };
  }
  // Fastify cannot tell that the server it was given speaks TLS: say https in its "listening" lines.
  await hub.app.listen({
    host: config.host,
    port: config.httpsPort,
    listenTextResolver: (address) => `Server listening at ${address.replace(/^http:/, 'https:')}`,
  });
  const httpsPort = (hub.app.server.address() as AddressInfo).port;
  const redirect = createRedirectServer(httpsPort);
  const httpPort = await listen(redirect, config.httpPort, config.host);
  const timer = setInterval(() => {
    hub.tls.renewIfDue().catch((error: unknown) => {
      hub.app.log.error({ err: error }, 'certificate renewal failed; will retry');
    });
  }, renewalCheckMs);
  timer.unref();
  const ticketTimer = setInterval(() => {
    try {
      hub.tls.rotateTicketKeysIfDue();
    } catch (error) {
      hub.app.log.error({ err: error }, 'cannot replace the TLS session ticket keys; will retry');
    }
  }, ticketKeyCheckMs);
  ticketTimer.unref();
  return {
    httpsPort,
    httpPort,
    close: async () => {
      clearInterval(timer);
      clearInterval(ticketTimer);
      redirect.closeAllConnections();
      await new Promise<void>((resolve) => {
        redirect.close(() => {
          resolve();
        });
      });
    },
  };
}
