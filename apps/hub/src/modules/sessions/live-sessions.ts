/**
 * Live terminal sessions in this hub process: each holds its agent stream (decision 0028), a scrollback ring
 * of the recent screen (sessionLimits.scrollbackBytes) replayed to every new attach, the browsers attached
 * now, and its recorder. Output is acknowledged to the agent once every attached browser has room (under
 * half its queue limit): a browser that stops reading first stops the shell, and after
 * sessionLimits.clientStallMs is closed (4008) so the others go on. Hub memory per session is bounded by
 * the stream window, the ring, and each client's queue limit, whatever the output rate.
 *
 * The attach protocol: binary frames are terminal bytes (keyboard in, screen out); text frames are JSON
 * control messages (see `sessionsContracts['sessions.attach']`).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Compile } from 'typebox/compile';
import { Type } from 'typebox';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { sessionCloseCodes, sessionLimits, streamLimits } from '@svc/protocol';
import type { Principal } from '../../access/principal.js';
import type { AgentStreamHandle, StreamEnd } from '../../agents/agent-gateway.js';
import type { CredentialLifetime } from '../../http/credential-lifetime.js';
import type { AsciicastRecorder } from './recorder.js';

const ControlMessage = Type.Union([
  Type.Object(
    {
      type: Type.Literal('resize'),
      cols: Type.Integer({ minimum: streamLimits.terminalCols.min, maximum: streamLimits.terminalCols.max }),
      rows: Type.Integer({ minimum: streamLimits.terminalRows.min, maximum: streamLimits.terminalRows.max }),
    },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal('close') }, { additionalProperties: false }),
]);
const controlCheck = Compile(ControlMessage);

export interface SessionLimits {
  clientQueueBytes: number;
  clientStallMs: number;
  clientFrameBytes: number;
  clientInputBytesPerSecond: number;
  clientsPerSession: number;
  scrollbackBytes: number;
}

interface AttachClient {
  ws: WebSocket;
  principal: Principal;
  stalledSince: number | null;
  windowStart: number;
  inputBytes: number;
  stopWatching: () => void;
}

export interface LiveSession {
  readonly id: string;
  readonly assetId: string;
  readonly kind: 'terminal';
  cols: number;
  rows: number;
  readonly startedAt: number;
  lastActivity: number;
  /** When the last browser left (null while one is attached, or before the first). */
  detachedSince: number;
  readonly recorder: AsciicastRecorder | null;
  readonly clients: Set<AttachClient>;
  ended: boolean;
}

interface SessionState extends LiveSession {
  handle: AgentStreamHandle<'pty'> | null;
  ring: Buffer[];
  ringBytes: number;
  pendingAck: number;
}

export interface LiveSessionsDeps {
  now: () => number;
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>;
  limits?: Partial<SessionLimits>;
  /** A session ended (the shell exited, it was closed, it idled out): persist, audit, publish. */
  onEnded(session: LiveSession, end: { reason: string; exitCode: number | null }): void;
  onAttached(session: LiveSession, principal: Principal): void;
  onDetached(session: LiveSession, principal: Principal): void;
}

export interface LiveSessions {
  readonly size: number;
  get(id: string): LiveSession | undefined;
  /** Registers a session before its stream opens, so output arriving at once has a home. */
  register(input: {
    id: string;
    assetId: string;
    cols: number;
    rows: number;
    recorder: AsciicastRecorder | null;
  }): {
    onData: (chunk: Buffer) => void;
    onClose: (end: StreamEnd) => void;
    opened: (handle: AgentStreamHandle<'pty'>) => void;
  };
  /** The stream could not open: forget the session quietly (the caller reports the failure). */
  discard(id: string): void;
  end(id: string, reason: string): void;
  attach(id: string, principal: Principal, request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sessions whose grace (no browser) or idle time ran out end now; stalled clients go; acks flow. */
  sweep(graceMs: number, idleMs: number): void;
  closeAll(reason: string): void;
}

function bytesOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export function createLiveSessions(deps: LiveSessionsDeps): LiveSessions {
  const limits: SessionLimits = { ...sessionLimits, ...deps.limits };
  const sessions = new Map<string, SessionState>();
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.clientFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });

  function closeClient(session: SessionState, client: AttachClient, code: number, reason: string): void {
    if (!session.clients.delete(client)) return;
    client.stopWatching();
    if (session.clients.size === 0) session.detachedSince = deps.now();
    try {
      client.ws.close(code, reason.slice(0, 120));
    } catch {
      client.ws.terminate();
    }
    const grace = setTimeout(() => {
      client.ws.terminate();
    }, 5_000);
    grace.unref();
    client.ws.once('close', () => {
      clearTimeout(grace);
    });
    if (!session.ended) deps.onDetached(session, client.principal);
    releaseAcks(session);
  }

  /** Whether every attached browser has room for more output. */
  function clientsHaveRoom(session: SessionState): boolean {
    for (const client of session.clients) {
      if (client.ws.bufferedAmount > limits.clientQueueBytes / 2) return false;
    }
    return true;
  }

  function releaseAcks(session: SessionState): void {
    if (session.pendingAck === 0 || !session.handle || !clientsHaveRoom(session)) return;
    const bytes = session.pendingAck;
    session.pendingAck = 0;
    session.handle.ack(bytes);
  }

  function onOutput(session: SessionState, chunk: Buffer): void {
    const now = deps.now();
    session.lastActivity = now;
    session.ring.push(chunk);
    session.ringBytes += chunk.length;
    while (session.ringBytes > limits.scrollbackBytes && session.ring.length > 1) {
      const head = session.ring[0];
      if (!head) break;
      const excess = session.ringBytes - limits.scrollbackBytes;
      if (head.length <= excess) {
        session.ring.shift();
        session.ringBytes -= head.length;
      } else {
        session.ring[0] = head.subarray(excess);
        session.ringBytes -= excess;
      }
    }
    session.recorder?.output(chunk, now);
    for (const client of [...session.clients]) {
      if (client.ws.bufferedAmount + chunk.length > limits.clientQueueBytes) {
        // Its queue is full: it misses output until it catches up (the ring shows it the screen on re-attach).
        client.stalledSince ??= now;
        continue;
      }
      client.ws.send(chunk, { binary: true });
    }
    session.pendingAck += chunk.length;
    releaseAcks(session);
  }

  function finish(session: SessionState, reason: string, exitCode: number | null): void {
    if (session.ended) return;
    session.ended = true;
    sessions.delete(session.id);
    const message = JSON.stringify({ type: 'ended', reason, exit_code: exitCode });
    for (const client of [...session.clients]) {
      try {
        client.ws.send(message);
      } catch {
        // Closing anyway.
      }
      closeClient(session, client, sessionCloseCodes.ended, reason);
    }
    deps.onEnded(session, { reason, exitCode });
  }

  function onClientMessage(
    session: SessionState,
    client: AttachClient,
    data: RawData,
    isBinary: boolean,
  ): void {
    const bytes = bytesOf(data);
    const now = deps.now();
    if (isBinary) {
      if (now - client.windowStart >= 1000) {
        client.windowStart = now;
        client.inputBytes = 0;
      }
      client.inputBytes += bytes.length;
      if (client.inputBytes > limits.clientInputBytesPerSecond) {
        closeClient(
          session,
          client,
          sessionCloseCodes.inputFlood,
          `input flood: more than ${limits.clientInputBytesPerSecond} bytes per second`,
        );
        return;
      }
      if (!session.handle?.write(bytes)) {
        closeClient(
          session,
          client,
          sessionCloseCodes.inputFlood,
          'input flood: the terminal is not taking input',
        );
        return;
      }
      session.lastActivity = now;
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(bytes.toString('utf8'));
    } catch {
      closeClient(session, client, sessionCloseCodes.protocolError, 'malformed control frame: not JSON');
      return;
    }
    if (!controlCheck.Check(message)) {
      const first = controlCheck.Errors(message)[0];
      const why = first ? `${first.instancePath || '/'} ${first.message}` : 'unknown message';
      closeClient(session, client, sessionCloseCodes.protocolError, `malformed control frame: ${why}`);
      return;
    }
    if (message.type === 'close') {
      session.handle?.close('closed by the user');
      finish(session, 'closed by the user', null);
      return;
    }
    if (message.cols === session.cols && message.rows === session.rows) return;
    session.cols = message.cols;
    session.rows = message.rows;
    session.handle?.resize(message.cols, message.rows);
    session.recorder?.resize(message.cols, message.rows, now);
  }

  function watch(principal: Principal, onEnd: () => void): () => void {
    if (principal.key) return deps.credentials.onCredentialEnded(principal.key, onEnd);
    if (principal.sessionId !== undefined) {
      return deps.credentials.onSessionEnded(
        { id: principal.sessionId, userId: principal.userId, expiresAt: principal.sessionExpiresAt ?? null },
        onEnd,
      );
    }
    return () => undefined;
  }

  return {
    get size() {
      return sessions.size;
    },
    get: (id) => sessions.get(id),

    register(input) {
      const now = deps.now();
      const session: SessionState = {
        id: input.id,
        assetId: input.assetId,
        kind: 'terminal',
        cols: input.cols,
        rows: input.rows,
        startedAt: now,
        lastActivity: now,
        detachedSince: now,
        recorder: input.recorder,
        clients: new Set(),
        ended: false,
        handle: null,
        ring: [],
        ringBytes: 0,
        pendingAck: 0,
      };
      sessions.set(input.id, session);
      return {
        onData: (chunk) => {
          onOutput(session, chunk);
        },
        onClose: (end) => {
          if (end.by === 'hub') return;
          finish(session, end.exit ? 'the shell exited' : end.reason, end.exit?.code ?? null);
        },
        opened: (handle) => {
          session.handle = handle;
          releaseAcks(session);
        },
      };
    },

    discard(id) {
      const session = sessions.get(id);
      if (!session) return;
      session.ended = true;
      sessions.delete(id);
    },

    end(id, reason) {
      const session = sessions.get(id);
      if (!session) return;
      session.handle?.close(reason);
      finish(session, reason, null);
    },

    attach(id, principal, request, socket, head) {
      wss.handleUpgrade(request, socket, head, (ws) => {
        const session = sessions.get(id);
        if (!session || session.ended) {
          ws.close(sessionCloseCodes.ended, 'the session has ended');
          return;
        }
        if (session.clients.size >= limits.clientsPerSession) {
          ws.close(
            sessionCloseCodes.tooManyClients,
            `at most ${limits.clientsPerSession} browsers per session`,
          );
          return;
        }
        const client: AttachClient = {
          ws,
          principal,
          stalledSince: null,
          windowStart: deps.now(),
          inputBytes: 0,
          stopWatching: () => undefined,
        };
        session.clients.add(client);
        client.stopWatching = watch(principal, () => {
          closeClient(session, client, sessionCloseCodes.credentialEnded, 'credential ended');
        });
        ws.on('error', () => undefined);
        ws.on('message', (data, isBinary) => {
          onClientMessage(session, client, data, isBinary);
        });
        ws.on('close', (code) => {
          // ws closes a frame over maxPayload with 1009 itself; either way the client is gone.
          if (session.clients.has(client)) {
            closeClient(session, client, code === 1009 ? 1009 : 1000, 'closed');
          }
        });
        const replay = Buffer.concat(session.ring);
        if (replay.length > 0) ws.send(replay, { binary: true });
        ws.send(
          JSON.stringify({
            type: 'status',
            state: 'live',
            replayed: replay.length,
            cols: session.cols,
            rows: session.rows,
          }),
        );
        deps.onAttached(session, principal);
      });
    },

    sweep(graceMs, idleMs) {
      const now = deps.now();
      for (const session of [...sessions.values()]) {
        for (const client of [...session.clients]) {
          if (client.ws.bufferedAmount <= limits.clientQueueBytes / 2) client.stalledSince = null;
          else client.stalledSince ??= now;
          if (client.stalledSince !== null && now - client.stalledSince > limits.clientStallMs) {
            closeClient(session, client, sessionCloseCodes.slowClient, 'slow client: not reading its output');
          }
        }
        releaseAcks(session);
        if (!session.handle) continue;
        if (session.clients.size === 0 && now - session.detachedSince > graceMs) {
          session.handle.close('no browser attached within the grace period');
          finish(session, 'no browser attached within the grace period', null);
        } else if (now - session.lastActivity > idleMs) {
          session.handle.close('idle timeout');
          finish(session, 'idle timeout', null);
        }
      }
    },

    closeAll(reason) {
      for (const session of [...sessions.values()]) {
        session.handle?.close(reason);
        finish(session, reason, null);
      }
      wss.close();
    },
  };
}
