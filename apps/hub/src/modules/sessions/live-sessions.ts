/**
 * Live terminal sessions in this hub process: each holds its agent stream (decision 0028), a scrollback ring
 * of the recent screen (sessionLimits.scrollbackBytes) replayed to every new attach, the browsers attached
 * now, and its recorder. Output is acknowledged to the agent once every attached browser has room (under
 * half its queue limit): a browser that stops reading first stops the shell, and after
 * sessionLimits.clientStallMs is closed (4008) so the others go on; acks held for a browser that fell behind
 * go once its socket wrote what it was behind on. Hub memory per session is bounded by the stream window,
 * the ring, and each client's queue limit, whatever the output rate.
 *
 * The attach protocol: binary frames are terminal bytes (keyboard in, screen out); text frames are JSON
 * control messages (see `sessionsContracts['sessions.attach']`).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Compile } from 'typebox/compile';
import { Type, type Static } from 'typebox';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { sessionCloseCodes, sessionLimits, streamLimits } from '@svc/protocol';
import type { Principal } from '../../access/principal.js';
import type { AgentStreamHandle, StreamEnd } from '../../agents/agent-gateway.js';
import { watchPrincipal, type CredentialLifetime } from '../../http/credential-lifetime.js';
import { withdrawnReason } from '../../http/upgrade.js';
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
type ControlMessage = Static<typeof ControlMessage>;

export interface SessionLimits {
  clientQueueBytes: number;
  clientStallMs: number;
  clientFrameBytes: number;
  clientInputBytesPerSecond: number;
  clientsPerSession: number;
  scrollbackBytes: number;
}

/** A message the hub sends a client as a text frame (see `sessionsContracts['sessions.attach']`). */
type ServerMessage =
  | { type: 'status'; state: 'live'; replayed: number; cols: number; rows: number }
  | { type: 'ended'; reason: string; exit_code: number | null };

/** Where a client's output goes: a browser's WebSocket here, or a relay to another hub process. */
export interface ClientSink {
  /** Output sent and not yet taken by the client: past half of clientQueueBytes the shell is held. */
  readonly bufferedAmount: number;
  output(chunk: Buffer): void;
  message(message: ServerMessage): void;
  /** Once: the client leaves, with a close code of `sessionCloseCodes` (or 1000/1009) and a reason. */
  close(code: number, reason: string): void;
}

/** A client attached through another hub process (decision 0043): its input and its leaving. */
interface RelayedClient {
  /** The session's agent stream info (a PTY's shell and pid). */
  readonly info: { shell: string; pid: number };
  /** Input queued at the agent. */
  readonly queuedBytes: number;
  /** Input from the client; false when it was closed for it (a flood). */
  input(chunk: Buffer): boolean;
  resize(cols: number, rows: number): void;
  /** Its relay took output: the shell may go on. */
  drained(): void;
  /** The client left (its browser closed, its process went away): the session stays. */
  leave(): void;
}

interface AttachClient {
  sink: ClientSink;
  /** Null for a client relayed from another process: that process watches its credential and audits. */
  principal: Principal | null;
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

/**
 * An attached caller's key changed (decision 0049): null when its new principal may stay attached; otherwise
 * why not, and whether the session ends with it (the caller was its owner: nobody it belongs to may use it).
 */
export type AttachRecheck = (principal: Principal) => { why: string; endsSession: boolean } | null;

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
  attach(
    id: string,
    principal: Principal,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    recheck: AttachRecheck,
  ): void;
  /** Closes every client of every session here (relayed ones too) with `code`; the sessions live on. */
  detachAll(code: number, reason: string): void;
  /**
   * Attaches a client relayed from another hub process, which checked the caller (decision 0043). Null when
   * the session is not live here; a full session closes the sink at once, as it does a browser.
   */
  attachRelayed(id: string, sink: ClientSink): RelayedClient | null;
  /** Sessions whose grace (no browser) or idle time ran out end now; stalled clients go; acks flow. */
  sweep(graceMs: number, idleMs: number): void;
  closeAll(reason: string): void;
}

/** A client's text frame as a control message, or why it is not one. */
export function parseControl(
  bytes: Buffer,
): { ok: true; message: ControlMessage } | { ok: false; why: string } {
  let message: unknown;
  try {
    message = JSON.parse(bytes.toString('utf8'));
  } catch {
    return { ok: false, why: 'malformed control frame: not JSON' };
  }
  if (!controlCheck.Check(message)) {
    const first = controlCheck.Errors(message)[0];
    const why = first ? `${first.instancePath || '/'} ${first.message}` : 'unknown message';
    return { ok: false, why: `malformed control frame: ${why}` };
  }
  return { ok: true, message };
}

/** A browser's WebSocket as a client sink; `written` runs each time a chunk of output left for the socket. */
function socketSink(ws: WebSocket, written: () => void): ClientSink {
  return {
    get bufferedAmount() {
      return ws.bufferedAmount;
    },
    output(chunk) {
      ws.send(chunk, { binary: true }, written);
    },
    message(message) {
      ws.send(JSON.stringify(message));
    },
    close(code, reason) {
      try {
        ws.close(code, reason.slice(0, 120));
      } catch {
        ws.terminate();
      }
      const grace = setTimeout(() => {
        ws.terminate();
      }, 5_000);
      grace.unref();
      ws.once('close', () => {
        clearTimeout(grace);
      });
    },
  };
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
    client.sink.close(code, reason);
    if (!session.ended && client.principal) deps.onDetached(session, client.principal);
    releaseAcks(session);
  }

  /** Whether every attached browser has room for more output. */
  function clientsHaveRoom(session: SessionState): boolean {
    for (const client of session.clients) {
      if (client.sink.bufferedAmount > limits.clientQueueBytes / 2) return false;
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
      if (client.sink.bufferedAmount + chunk.length > limits.clientQueueBytes) {
        // Its queue is full: it misses output until it catches up (the ring shows it the screen on re-attach).
        client.stalledSince ??= now;
        continue;
      }
      client.sink.output(chunk);
    }
    session.pendingAck += chunk.length;
    releaseAcks(session);
  }

  function finish(session: SessionState, reason: string, exitCode: number | null): void {
    if (session.ended) return;
    session.ended = true;
    sessions.delete(session.id);
    for (const client of [...session.clients]) {
      try {
        client.sink.message({ type: 'ended', reason, exit_code: exitCode });
      } catch {
        // Closing anyway.
      }
      closeClient(session, client, sessionCloseCodes.ended, reason);
    }
    deps.onEnded(session, { reason, exitCode });
  }

  function clientInput(session: SessionState, client: AttachClient, bytes: Buffer): boolean {
    const now = deps.now();
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
      return false;
    }
    if (!session.handle?.write(bytes)) {
      closeClient(
        session,
        client,
        sessionCloseCodes.inputFlood,
        'input flood: the terminal is not taking input',
      );
      return false;
    }
    session.lastActivity = now;
    return true;
  }

  function resize(session: SessionState, cols: number, rows: number): void {
    if (cols === session.cols && rows === session.rows) return;
    session.cols = cols;
    session.rows = rows;
    session.handle?.resize(cols, rows);
    session.recorder?.resize(cols, rows, deps.now());
  }

  function onClientMessage(
    session: SessionState,
    client: AttachClient,
    data: RawData,
    isBinary: boolean,
  ): void {
    const bytes = bytesOf(data);
    if (isBinary) {
      clientInput(session, client, bytes);
      return;
    }
    const parsed = parseControl(bytes);
    if (!parsed.ok) {
      closeClient(session, client, sessionCloseCodes.protocolError, parsed.why);
      return;
    }
    if (parsed.message.type === 'close') {
      session.handle?.close('closed by the user');
      finish(session, 'closed by the user', null);
      return;
    }
    resize(session, parsed.message.cols, parsed.message.rows);
  }

  /** Adds a client to a live session with room, replays the screen to it; null otherwise (sink closed). */
  function addClient(
    session: SessionState,
    sink: ClientSink,
    principal: Principal | null,
  ): AttachClient | null {
    if (session.clients.size >= limits.clientsPerSession) {
      sink.close(
        sessionCloseCodes.tooManyClients,
        `at most ${limits.clientsPerSession} browsers per session`,
      );
      return null;
    }
    const client: AttachClient = {
      sink,
      principal,
      stalledSince: null,
      windowStart: deps.now(),
      inputBytes: 0,
      stopWatching: () => undefined,
    };
    session.clients.add(client);
    const replay = Buffer.concat(session.ring);
    if (replay.length > 0) sink.output(replay);
    sink.message({
      type: 'status',
      state: 'live',
      replayed: replay.length,
      cols: session.cols,
      rows: session.rows,
    });
    return client;
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
          // Ended here (closed, idled out: finished by the caller) or the agent's connection went (its shells
          // with it): either way the session is over, and its browsers are told instead of left waiting.
          if (end.by === 'hub') {
            finish(session, end.reason, null);
            return;
          }
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

    attach(id, principal, request, socket, head, recheck) {
      wss.handleUpgrade(request, socket, head, (ws) => {
        const session = sessions.get(id);
        if (!session || session.ended) {
          ws.close(sessionCloseCodes.ended, 'the session has ended');
          return;
        }
        // Acks held while this browser was behind go as soon as it caught up, not at the next sweep.
        const client = addClient(
          session,
          socketSink(ws, () => {
            releaseAcks(session);
          }),
          principal,
        );
        if (!client) return;
        client.stopWatching = watchPrincipal(
          deps.credentials,
          principal,
          () => {
            closeClient(session, client, sessionCloseCodes.credentialEnded, 'credential ended');
          },
          (next) => {
            const refused = recheck(next);
            if (!refused) {
              client.principal = next;
              return;
            }
            const reason = withdrawnReason(refused.why);
            closeClient(session, client, sessionCloseCodes.accessWithdrawn, reason);
            if (refused.endsSession && !session.ended) {
              session.handle?.close(reason);
              finish(session, reason, null);
            }
          },
        );
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
        deps.onAttached(session, principal);
      });
    },

    attachRelayed(id, sink) {
      const session = sessions.get(id);
      if (!session || session.ended || !session.handle) return null;
      const handle = session.handle;
      const client = addClient(session, sink, null);
      return {
        info: handle.info,
        get queuedBytes() {
          return handle.queuedBytes;
        },
        input: (chunk) =>
          client && session.clients.has(client) ? clientInput(session, client, chunk) : false,
        resize: (cols, rows) => {
          if (client && session.clients.has(client)) resize(session, cols, rows);
        },
        drained: () => {
          if (client && session.clients.has(client) && sink.bufferedAmount <= limits.clientQueueBytes / 2)
            client.stalledSince = null;
          releaseAcks(session);
        },
        leave: () => {
          if (client && session.clients.has(client)) closeClient(session, client, 1000, 'closed');
        },
      };
    },

    detachAll(code, reason) {
      for (const session of sessions.values())
        for (const client of [...session.clients]) closeClient(session, client, code, reason);
    },

    sweep(graceMs, idleMs) {
      const now = deps.now();
      for (const session of [...sessions.values()]) {
        for (const client of [...session.clients]) {
          if (client.sink.bufferedAmount <= limits.clientQueueBytes / 2) client.stalledSince = null;
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
