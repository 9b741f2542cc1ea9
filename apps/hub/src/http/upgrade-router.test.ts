import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { routeList } from '@svc/protocol';
import { HubError } from '../platform/hub-error.js';
import type { Principal } from '../access/principal.js';
import { createUpgradeRouter, type UpgradeHandlers } from './upgrade.js';

const reader: Principal = {
  authType: 'api_key',
  userId: null,
  role: 'viewer',
  scopes: ['events:subscribe'],
  key: { id: 'key_reader', name: 'reader', expiresAt: null },
  allowedAssets: null,
};

/** One upgrade request on loopback; resolves with the first line the server answers. */
function statusLine(port: number, path: string, authorization?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.write(
        [
          `GET ${path} HTTP/1.1`,
          'Host: 127.0.0.1',
          'Upgrade: websocket',
          'Connection: Upgrade',
          ...(authorization ? [`Authorization: ${authorization}`] : []),
          '',
          '',
        ].join('\r\n'),
      );
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      resolve(text.split('\r\n')[0] ?? '');
    });
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer')));
  });
}

describe('upgrade router: modules contribute WebSocket handlers by contract name', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => server?.close(resolve));
  });

  async function listen(handlers: UpgradeHandlers, publicCalls: string[]): Promise<number> {
    server = http.createServer();
    server.on(
      'upgrade',
      createUpgradeRouter({
        routes: routeList,
        authenticator: {
          authenticate: (request) =>
            request.headers.authorization === 'Bearer good'
              ? Promise.resolve(reader)
              : Promise.reject(new HubError('unauthorized')),
        },
        handlers,
        publicHandlers: {
          'agents.channel': (request, socket) => {
            publicCalls.push(request.headers.authorization ?? 'none');
            socket.end('HTTP/1.1 418 Agent Channel\r\nConnection: close\r\n\r\n');
          },
        },
        onError: () => undefined,
      }),
    );
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  it('the handler runs with the admitted principal; a refused caller never reaches it', async () => {
    const seen: Principal[] = [];
    const port = await listen(
      {
        'events.stream': (principal, _request, socket) => {
          seen.push(principal);
          socket.end('HTTP/1.1 418 Handled\r\nConnection: close\r\n\r\n');
        },
      },
      [],
    );
    expect(await statusLine(port, '/api/v2/events/stream')).toBe('HTTP/1.1 401 Unauthorized');
    expect(seen).toEqual([]);
    expect(await statusLine(port, '/api/v2/events/stream?since=1', 'Bearer good')).toBe(
      'HTTP/1.1 418 Handled',
    );
    expect(seen).toEqual([reader]);
  });

  it('a public upgrade contract (the agent channel) goes to its own handler with its own credential', async () => {
    const publicCalls: string[] = [];
    const port = await listen({}, publicCalls);
    expect(await statusLine(port, '/api/v1/agent/channel', 'Bearer agent-secret')).toBe(
      'HTTP/1.1 418 Agent Channel',
    );
    expect(publicCalls).toEqual(['Bearer agent-secret']);
    // Not an upgrade contract: refused, and the agent handler is not reached for other paths.
    expect(await statusLine(port, '/api/v1/other')).toBe('HTTP/1.1 404 Not Found');
    expect(publicCalls).toHaveLength(1);
  });
});
