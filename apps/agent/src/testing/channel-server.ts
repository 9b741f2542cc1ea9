/**
 * A stand-in hub for tests that run the agent as a process: a plain WebSocket server on the agent channel's
 * path and a temporary folder, made before each test and removed after it.
 */
import http from 'node:http';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { agentChannelPath, type Frame } from '@svc/protocol';

export interface ChannelServer {
  /** The test's temporary folder. */
  readonly dir: string;
  readonly wss: WebSocketServer;
  /** `http://127.0.0.1:<port>`: the hub URL the agent is given. */
  readonly url: string;
}

/** Registers the hooks; the fields are the current test's. */
export function useChannelServer(prefix: string): ChannelServer {
  let dir = '';
  let server: http.Server | null = null;
  let wss: WebSocketServer | null = null;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    server = http.createServer();
    wss = new WebSocketServer({ server, path: agentChannelPath });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  afterEach(async () => {
    for (const client of wss?.clients ?? []) client.terminate();
    wss?.close();
    const closing = server;
    if (closing) await new Promise((resolve) => closing.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });
  const current = <T>(value: T | null): T => {
    if (value === null) throw new Error('the channel server runs only inside a test');
    return value;
  };
  return {
    get dir() {
      return dir;
    },
    get wss() {
      return current(wss);
    },
    get url() {
      return `http://127.0.0.1:${String((current(server).address() as AddressInfo).port)}`;
    },
  };
}

/** The next frame of `type` (and request `id`, when given) the agent sends. */
export function nextFrame(ws: WebSocket, type: string, id?: string): Promise<Frame> {
  return new Promise((resolve) => {
    const onMessage = (data: Buffer) => {
      const frame = JSON.parse(data.toString()) as Frame;
      if (frame.type !== type || (id !== undefined && frame.id !== id)) return;
      ws.off('message', onMessage);
      resolve(frame);
    };
    ws.on('message', onMessage);
  });
}
