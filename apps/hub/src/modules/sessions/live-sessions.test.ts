/**
 * Flow control between a live session's browser and its agent stream, without a hub: a real WebSocket
 * attach (loopback) to `createLiveSessions`, and a fake agent stream handle that records the acks.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { sessionLimits, streamLimits } from '@svc/protocol';
import type { Principal } from '../../access/principal.js';
import type { AgentStreamHandle } from '../../agents/agent-gateway.js';
import { createLiveSessions } from './live-sessions.js';

const principal: Principal = {
  authType: 'api_key',
  userId: null,
  role: 'operator',
  scopes: ['assets:exec'],
  key: { id: 'k1', name: 'k', expiresAt: null },
  allowedAssets: null,
};

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`never: ${what}`);
}

describe('a live session acknowledging output to its agent', () => {
  it('acks what a browser that fell behind held back as soon as it caught up, with no more output', async () => {
    const live = createLiveSessions({
      now: () => Date.now(),
      credentials: { onCredentialEnded: () => () => undefined, onSessionEnded: () => () => undefined },
      onEnded: () => undefined,
      onAttached: () => undefined,
      onDetached: () => undefined,
    });
    cleanups.push(() => {
      live.closeAll('test over');
    });
    let acked = 0;
    const handle: AgentStreamHandle<'pty'> = {
      id: 's1',
      assetId: 'a1',
      kind: 'pty',
      info: { shell: '/bin/sh', pid: 1 },
      closed: false,
      queuedBytes: 0,
      write: () => true,
      resize: () => undefined,
      ack: (bytes) => {
        acked += bytes;
      },
      close: () => undefined,
    };
    const session = live.register({ id: 'ses1', assetId: 'a1', cols: 80, rows: 24, recorder: null });
    session.opened(handle);

    const server = http.createServer();
    server.on('upgrade', (request, socket, head) => {
      live.attach('ses1', principal, request, socket, head, () => null);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) =>
          server.close(() => {
            resolve();
          }),
        ),
    );
    const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    cleanups.push(() => {
      ws.terminate();
    });
    let received = 0;
    ws.on('message', (data: Buffer, isBinary) => {
      if (isBinary) received += data.length;
    });
    await new Promise((resolve) => ws.once('message', resolve)); // the status message: attached
    const clientSocket = (ws as unknown as { _socket: Socket })._socket;
    clientSocket.pause();

    // The browser stops reading: output the hub could not write piles up on its socket, and past half the
    // client's queue the hub stops acknowledging, so the agent (out of credit) stops sending.
    const chunk = Buffer.alloc(streamLimits.chunkBytes, 0x61);
    let sent = 0;
    for (let i = 0; i < 2000 && acked === sent; i++) {
      session.onData(chunk);
      sent += chunk.length;
      await new Promise((r) => setImmediate(r));
    }
    expect(acked).toBeLessThan(sent);
    expect(sent - acked).toBeLessThanOrEqual(sessionLimits.clientQueueBytes);

    // The browser reads again. No output follows (the agent has no credit) and no sweep runs here: the
    // hub must acknowledge what it held once the socket wrote what the browser was behind on.
    clientSocket.resume();
    await until(() => acked === sent, `all ${sent} bytes acknowledged (${acked} were)`);
    expect(received).toBeGreaterThan(0);
  });
});
