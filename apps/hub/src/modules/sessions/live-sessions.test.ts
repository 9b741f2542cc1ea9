/**
 * A live session's browser and its agent stream, without a hub: a real WebSocket attach (loopback) to
 * `createLiveSessions`, and a fake agent stream handle that records the acks.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { sessionCloseCodes, sessionLimits, streamLimits } from '@svc/protocol';
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

/** One live session on a fake agent stream, with a browser attached over a loopback WebSocket. */
async function attachedSession() {
  const ended: { reason: string; exitCode: number | null }[] = [];
  const live = createLiveSessions({
    now: () => Date.now(),
    credentials: { onCredentialEnded: () => () => undefined, onSessionEnded: () => () => undefined },
    onEnded: (_session, end) => {
      ended.push(end);
    },
    onAttached: () => undefined,
    onDetached: () => undefined,
  });
  cleanups.push(() => {
    live.closeAll('test over');
  });
  const acks = { bytes: 0 };
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
      acks.bytes += bytes;
    },
    close: () => undefined,
  };
  const stream = live.register({ id: 'ses1', assetId: 'a1', cols: 80, rows: 24, recorder: null });
  stream.opened(handle);

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
  const browser = { received: 0, controls: [] as Record<string, unknown>[] };
  ws.on('message', (data: Buffer, isBinary) => {
    if (isBinary) browser.received += data.length;
    else browser.controls.push(JSON.parse(data.toString('utf8')) as Record<string, unknown>);
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    ws.once('close', (code, reason) => {
      resolve({ code, reason: reason.toString() });
    });
  });
  await until(() => browser.controls.length > 0, 'the status message'); // attached
  return { live, stream, acks, ws, browser, closed, ended };
}

describe('a live session and its agent stream', () => {
  it('acks what a browser that fell behind held back as soon as it caught up, with no more output', async () => {
    const { stream, acks, ws, browser } = await attachedSession();
    const clientSocket = (ws as unknown as { _socket: Socket })._socket;
    clientSocket.pause();

    // The browser stops reading: output the hub could not write piles up on its socket, and past half the
    // client's queue the hub stops acknowledging, so the agent (out of credit) stops sending.
    const chunk = Buffer.alloc(streamLimits.chunkBytes, 0x61);
    let sent = 0;
    for (let i = 0; i < 2000 && acks.bytes === sent; i++) {
      stream.onData(chunk);
      sent += chunk.length;
      await new Promise((r) => setImmediate(r));
    }
    expect(acks.bytes).toBeLessThan(sent);
    expect(sent - acks.bytes).toBeLessThanOrEqual(sessionLimits.clientQueueBytes);

    // The browser reads again. No output follows (the agent has no credit) and no sweep runs here: the
    // hub must acknowledge what it held once the socket wrote what the browser was behind on.
    clientSocket.resume();
    await until(() => acks.bytes === sent, `all ${sent} bytes acknowledged (${acks.bytes} were)`);
    expect(browser.received).toBeGreaterThan(0);
  });

  it('ends the session and tells its browser when the agent connection goes', async () => {
    const { live, stream, browser, closed, ended } = await attachedSession();
    stream.onClose({ reason: 'the agent disconnected', by: 'hub', exit: null });
    expect(await closed).toEqual({ code: sessionCloseCodes.ended, reason: 'the agent disconnected' });
    expect(browser.controls.at(-1)).toEqual({
      type: 'ended',
      reason: 'the agent disconnected',
      exit_code: null,
    });
    expect(ended).toEqual([{ reason: 'the agent disconnected', exitCode: null }]);
    expect(live.get('ses1')).toBeUndefined();
  });
});
