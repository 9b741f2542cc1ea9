/**
 * Terminal sessions across hub processes (decision 0043). A session lives on the process that created it
 * (its owner node: the agent stream, the scrollback, the recorder). An attach the load balancer sends to
 * another process is checked there exactly as a local one (sessions.service.ts), then relayed at the session
 * layer: the receiving process opens a stream to the owner with the cluster's stream relay
 * (agents/cluster-streams.ts, on the session kind of the owned-state seam, decision 0058: its subjects,
 * checks and node-gone handling), and the owner attaches it to the session as one more
 * client. Credit flow control stays end to end: the owner counts what it sent the relay until the receiving
 * process's WebSocket wrote it, as it counts a local browser's socket buffer.
 *
 * What a relayed client needs beyond bytes travels in the stream's end: `by: 'agent'` when the session ended
 * (with its exit code), and the close code the owner chose in front of the reason (`4008 slow client…`).
 * A relay that ends without one (the owner went away) answers as an ended session.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { sessionCloseCodes, sessionLimits } from '@svc/protocol';
import type { Principal } from '../../access/principal.js';
import {
  AgentOfflineError,
  AgentReplyError,
  type AgentStreamHandle,
  type AgentStreams,
  type OpenStreamOptions,
  type StreamEnd,
} from '../../agents/agent-gateway.js';
import { createStreamRelay } from '../../agents/cluster-streams.js';
import { watchPrincipal, type CredentialLifetime } from '../../http/credential-lifetime.js';
import { withdrawnReason } from '../../http/upgrade.js';
import type { OwnedStates } from '../../platform/cluster/owned-state.js';
import { wireReasonLength } from '../../platform/cluster/wire-values.js';
import type { Logger } from '../../platform/logger.js';
import { sessionKind } from './session-kind.js';
import {
  parseControl,
  type AttachRecheck,
  type ClientSink,
  type LiveSessions,
  type SessionLimits,
} from './live-sessions.js';

/** The owner's close code in front of a relayed client's end reason. */
const codedReason = /^([14]\d{3}) (.*)$/s;
const endTimeoutMs = 5_000;

export interface SessionRelayDeps {
  owned: OwnedStates;
  logger: Logger;
  live: LiveSessions;
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>;
  limits?: Partial<SessionLimits>;
  /** The caller attached or left through this process (audited and published here). */
  onAttached(principal: Principal, session: RelayedSession): void;
  onDetached(principal: Principal, session: RelayedSession): void;
}

/** What the receiving process knows of the session from its row. */
interface RelayedSession {
  id: string;
  assetId: string;
  cols: number;
  rows: number;
}

export interface SessionRelay {
  /**
   * Upgrades an attach already checked here and relays it to the session's owner node; this process watches
   * the caller's credential and checks it again (`recheck`) when its key changes.
   */
  attach(
    owner: string,
    session: RelayedSession,
    principal: Principal,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    recheck: AttachRecheck,
  ): void;
  /** Closes every browser relayed from here with `code` (the sessions live on at their owners). */
  detachAll(code: number, reason: string): void;
  /** Asks the owner node to end a session; resolves with whether it was live there. */
  end(owner: string, sessionId: string, reason: string): Promise<boolean>;
  /** Answers attaches relayed from the other processes. */
  start(): void;
  close(reason: string): void;
}

/** The owner's side: a relayed attach is one more client of the live session, as an agent stream. */
function sessionStreams(live: LiveSessions): AgentStreams {
  return {
    openStream<K extends 'pty' | 'tcp'>(
      sessionId: string,
      options: OpenStreamOptions<K>,
    ): Promise<AgentStreamHandle<K>> {
      if (options.kind !== 'pty')
        return Promise.reject(new AgentReplyError('invalid_argument', 'sessions relay terminals only'));
      let outstanding = 0;
      let closed = false;
      let ended: { reason: string; exitCode: number | null } | null = null;
      const sink: ClientSink = {
        get bufferedAmount() {
          return outstanding;
        },
        output(chunk) {
          if (closed) return;
          outstanding += chunk.length;
          options.onData(chunk);
        },
        message(message) {
          if (message.type === 'ended') ended = { reason: message.reason, exitCode: message.exit_code };
        },
        close(code, reason) {
          if (closed) return;
          closed = true;
          options.onClose(
            ended
              ? { reason: ended.reason, by: 'agent', exit: { code: ended.exitCode, signal: null } }
              : { reason: `${code} ${reason}`, by: 'hub', exit: null },
          );
        },
      };
      const client = live.attachRelayed(sessionId, sink);
      if (!client) return Promise.reject(new AgentOfflineError(sessionId));
      const handle: AgentStreamHandle<'pty'> = {
        id: sessionId,
        assetId: sessionId,
        kind: 'pty',
        info: client.info,
        get closed() {
          return closed;
        },
        get queuedBytes() {
          return client.queuedBytes;
        },
        write: (chunk) => !closed && client.input(chunk),
        resize: (cols, rows) => {
          client.resize(cols, rows);
        },
        ack: (bytes) => {
          outstanding = Math.max(0, outstanding - bytes);
          client.drained();
        },
        close: () => {
          if (closed) return;
          closed = true;
          client.leave();
        },
      };
      return Promise.resolve(handle as unknown as AgentStreamHandle<K>);
    },
  };
}

function bytesOf(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}

export function createSessionRelay(deps: SessionRelayDeps): SessionRelay {
  const { owned, logger, live } = deps;
  const limits = { ...sessionLimits, ...deps.limits };
  const sessions = owned.kind(sessionKind);
  const streams = createStreamRelay({
    owned,
    kind: sessionKind.def.name,
    local: sessionStreams(live),
    logger,
  });
  sessions.answer('end', (data) => {
    const ended = live.get(data.session_id) !== undefined;
    live.end(data.session_id, data.reason);
    return { ended };
  });
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.clientFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  /** The browsers relayed from here now, by how each is closed. */
  const relayed = new Set<(code: number, reason: string) => void>();

  async function end(owner: string, sessionId: string, reason: string): Promise<boolean> {
    const reply = await sessions.request(
      owner,
      'end',
      { session_id: sessionId, reason: reason.slice(0, wireReasonLength) },
      { timeoutMs: endTimeoutMs },
    );
    return reply.ended;
  }

  /** Relays one browser's WebSocket to the session on its owner node. */
  function relay(
    owner: string,
    session: RelayedSession,
    caller: Principal,
    ws: WebSocket,
    recheck: AttachRecheck,
  ): void {
    /** The caller as its key is now (audited at the detach). */
    let principal = caller;
    let handle: AgentStreamHandle<'pty'> | null = null;
    let done = false;
    let received = 0;
    let windowStart = Date.now();
    let inputBytes = 0;
    const early: Buffer[] = [];
    let earlyBytes = 0;
    let stopWatching: () => void = () => undefined;

    const finish = (code: number, reason: string, ended?: { exitCode: number | null }) => {
      if (done) return;
      done = true;
      relayed.delete(close);
      stopWatching();
      if (ended && ws.readyState === ws.OPEN)
        ws.send(JSON.stringify({ type: 'ended', reason, exit_code: ended.exitCode }));
      if (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING) ws.close(code, reason.slice(0, 120));
      if (handle && !handle.closed) handle.close(reason);
      if (handle) deps.onDetached(principal, session);
    };

    const input = (bytes: Buffer) => {
      const now = Date.now();
      if (now - windowStart >= 1000) {
        windowStart = now;
        inputBytes = 0;
      }
      inputBytes += bytes.length;
      if (inputBytes > limits.clientInputBytesPerSecond) {
        finish(
          sessionCloseCodes.inputFlood,
          `input flood: more than ${limits.clientInputBytesPerSecond} bytes per second`,
        );
        return;
      }
      if (!handle) {
        earlyBytes += bytes.length;
        if (earlyBytes > limits.clientInputBytesPerSecond)
          finish(sessionCloseCodes.inputFlood, 'input flood: the terminal is not open yet');
        else early.push(bytes);
        return;
      }
      if (!handle.write(bytes))
        finish(sessionCloseCodes.inputFlood, 'input flood: the terminal is not taking input');
    };

    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => {
      if (done) return;
      const bytes = bytesOf(data);
      if (isBinary) {
        input(bytes);
        return;
      }
      const parsed = parseControl(bytes);
      if (!parsed.ok) {
        finish(sessionCloseCodes.protocolError, parsed.why);
        return;
      }
      if (parsed.message.type === 'close') {
        // The owner ends the session; its end comes back through the relay as the session's end.
        end(owner, session.id, 'closed by the user').catch((error: unknown) => {
          logger.warn({ err: error, session_id: session.id }, 'ending a session on its owner failed');
          finish(sessionCloseCodes.ended, 'the session has ended', { exitCode: null });
        });
        return;
      }
      handle?.resize(parsed.message.cols, parsed.message.rows);
    });
    ws.on('close', (code) => {
      finish(code === 1009 ? 1009 : 1000, 'the console disconnected');
    });
    const close = (code: number, reason: string) => {
      finish(code, reason);
    };
    relayed.add(close);
    stopWatching = watchPrincipal(
      deps.credentials,
      principal,
      () => {
        finish(sessionCloseCodes.credentialEnded, 'credential ended');
      },
      (next) => {
        const refused = recheck(next);
        if (!refused) {
          principal = next;
          return;
        }
        const reason = withdrawnReason(refused.why);
        finish(sessionCloseCodes.accessWithdrawn, reason);
        // Its owner may no longer use it: the owner process ends the shell.
        if (refused.endsSession)
          end(owner, session.id, reason).catch((error: unknown) => {
            logger.warn({ err: error, session_id: session.id }, 'ending a session on its owner failed');
          });
      },
    );

    const onData = (chunk: Buffer) => {
      if (done) return;
      received += chunk.length;
      ws.send(chunk, { binary: true }, (error) => {
        // What the WebSocket wrote is acknowledged: the owner may send that much more.
        if (!error && handle && !handle.closed) handle.ack(chunk.length);
      });
    };
    const onClose = (streamEnd: StreamEnd) => {
      if (streamEnd.by === 'agent') {
        finish(sessionCloseCodes.ended, streamEnd.reason, { exitCode: streamEnd.exit?.code ?? null });
        return;
      }
      const coded = codedReason.exec(streamEnd.reason);
      if (coded?.[1] && coded[2] !== undefined) {
        finish(Number(coded[1]), coded[2]);
        return;
      }
      // The owner went away (or the relay broke): its sessions ended with it.
      finish(sessionCloseCodes.ended, 'the session has ended', { exitCode: null });
    };

    streams
      .open(owner, session.id, {
        kind: 'pty',
        params: { cols: session.cols, rows: session.rows },
        windowBytes: limits.clientQueueBytes,
        onData,
        onClose,
      })
      .then(
        (opened) => {
          if (done) {
            opened.close('the console disconnected');
            return;
          }
          handle = opened;
          for (const chunk of early.splice(0)) input(chunk);
          // After the scrollback the owner sent with its open (delivered first by the relay).
          setImmediate(() => {
            if (done) return;
            ws.send(
              JSON.stringify({
                type: 'status',
                state: 'live',
                replayed: received,
                cols: session.cols,
                rows: session.rows,
              }),
            );
            deps.onAttached(principal, session);
          });
        },
        (error: unknown) => {
          if (!(error instanceof AgentOfflineError))
            logger.warn({ err: error, session_id: session.id, node: owner }, 'relaying an attach failed');
          finish(sessionCloseCodes.ended, 'the session has ended', { exitCode: null });
        },
      );
  }

  return {
    attach(owner, session, principal, request, socket, head, recheck) {
      wss.handleUpgrade(request, socket, head, (ws) => {
        relay(owner, session, principal, ws, recheck);
      });
    },

    detachAll(code, reason) {
      for (const close of [...relayed]) close(code, reason);
    },

    end,

    start() {
      streams.start();
    },

    close(reason) {
      streams.close(reason);
      wss.close();
    },
  };
}
