/**
 * The desktop relay against a real VNC server (Xtigervnc): a console WebSocket on loopback, the hub's
 * stream table, the agent's stream host with its real `tcp` opener, joined by in-memory frames as the channel
 * would carry them. The RFB handshake and the first frame go through all of it; the recording replays.
 */
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { DesktopRecorder, parseDesktopRecording } from '@svc/protocol';
import {
  rfbHandshake,
  rfbPixelAt,
  startVncServer,
  vncMissing,
  webSocketByteStream,
  type VncServer,
} from '@svc/testkit';
import { StreamHost } from '../../../../agent/src/channel/streams.js';
import { createTunnelOpeners } from '../../../../agent/src/handlers/tunnel.js';
import type { StreamEnd } from '../../agents/agent-gateway.js';
import { createStreamTable } from '../../agents/streams.js';
import { desktopCloseCodes, startDesktopRelay } from './desktop-relay.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** Hub and agent ends of the channel, frames delivered on the next turn as over a socket. */
function channel(vncPort: number) {
  let host: StreamHost | null = null;
  let streamCounter = 0;
  const table = createStreamTable({
    assetId: 'asset-desk',
    now: () => performance.now(),
    send: (text) => {
      setImmediate(() => {
        const frame = JSON.parse(text) as { type: string; payload: unknown };
        host?.handle(frame.type, frame.payload);
      });
    },
    violation: (reason) => {
      throw new Error(`violation: ${reason}`);
    },
  });
  host = new StreamHost({
    logger: silent,
    openers: createTunnelOpeners({ vncPort }),
    send: (text) => {
      setImmediate(() => {
        const frame = JSON.parse(text) as { type: string; payload: unknown };
        table.receive(frame.type, frame.payload);
      });
    },
  });
  return { table, nextId: () => `s${(streamCounter += 1)}` };
}

interface ConsoleEnd {
  client: WebSocket;
  ends: StreamEnd[];
  pieces: Uint8Array[];
}

describe.skipIf(vncMissing() !== null)('the desktop relay', () => {
  let vnc: VncServer;
  let server: http.Server;
  let wss: WebSocketServer;
  let port: number;
  let vncPort: number;
  const sockets = new Set<net.Socket>();

  beforeAll(async () => {
    vnc = await startVncServer({ password: 'relay-pw', colour: [30, 120, 220] });
    vncPort = vnc.port;
    server = http.createServer();
    server.on('connection', (s) => {
      sockets.add(s);
    });
    wss = new WebSocketServer({ server, maxPayload: 1024 * 1024 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    wss.close();
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
    await vnc.close();
  });

  /** Accepts one console connection and relays it to the desktop on `target`. */
  async function connect(target: number): Promise<ConsoleEnd> {
    const ch = channel(target);
    const ends: StreamEnd[] = [];
    const pieces: Uint8Array[] = [];
    const recorder = new DesktopRecorder({
      startedAt: new Date(),
      now: () => performance.now(),
      write: (b) => pieces.push(b.slice()),
    });
    wss.once('connection', (socket) => {
      void startDesktopRelay({
        socket,
        recorder,
        openStream: (callbacks) => ch.table.open(ch.nextId(), { kind: 'tcp', params: {}, ...callbacks }),
        onEnd: (end) => ends.push(end),
      }).catch((error: unknown) => {
        socket.close(4000, (error as Error).message.slice(0, 100));
      });
    });
    const client = new WebSocket(`ws://127.0.0.1:${port}/`);
    await new Promise((resolve, reject) => {
      client.once('open', resolve);
      client.once('error', reject);
    });
    return { client, ends, pieces };
  }

  it('carries the handshake, VncAuth and the first frame, and records what the desktop showed', async () => {
    const { client, ends, pieces } = await connect(vncPort);
    const stream = webSocketByteStream(client);
    const session = await rfbHandshake(stream, 'relay-pw');
    expect([session.width, session.height]).toEqual([320, 200]);
    expect(await rfbPixelAt(stream, session, 10, 10)).toEqual([30, 120, 220]);
    const closed = new Promise((resolve) => client.once('close', resolve));
    client.close();
    await closed;
    await expect.poll(() => ends.length).toBe(1);
    expect(ends[0]).toMatchObject({ by: 'hub', reason: 'the console disconnected' });

    const file = Buffer.concat(pieces);
    const recording = parseDesktopRecording(file);
    if (!recording.ok) throw new Error(recording.message);
    const first = Buffer.from(recording.value.frames[0]?.bytes ?? []);
    // The recording starts at ServerInit: the screen's size, then (later frames) the painted pixels.
    expect([first.readUInt16BE(0), first.readUInt16BE(2)]).toEqual([320, 200]);
    expect(file.includes(Buffer.from('relay-pw'))).toBe(false);
  });

  it('closes the console with a reason when nothing listens on the desktop port', async () => {
    const dead = await connect(1);
    const [code, reason] = await new Promise<[number, string]>((resolve) => {
      dead.client.once('close', (c, r) => {
        resolve([c, r.toString()]);
      });
    });
    expect(code).toBe(4000);
    expect(reason).toMatch(/no VNC server listening on 127\.0\.0\.1:1/);
  });

  it('closes a console that sends text instead of RFB', async () => {
    const { client } = await connect(vncPort);
    const closed = new Promise<number>((resolve) => {
      client.once('close', (code) => {
        resolve(code);
      });
    });
    client.send('hello');
    expect(await closed).toBe(desktopCloseCodes.protocol);
  });
});
