/**
 * The agent channel over WebSockets (ARCHITECTURE.md section 4): one connection per agent, identified by the
 * credential it upgraded with (channel-auth.ts), speaking the frame catalog of @svc/protocol. Everything an
 * agent sends is untrusted: each frame is size-limited, rate-limited, byte-budgeted (byte-budget.ts) and
 * validated; a malformed result fails its own request, a protocol violation closes the connection (1008), and
 * neither ever throws into the hub. Violations are logged through the refusal log: a few lines per address a
 * minute, then a summary.
 *
 * Memory per connection is a small record plus its pending requests; the gateway keeps one interval for all
 * connections (hello deadlines, batched presence writes), one that pings a share of them at a time (keepalive
 * spread over its interval), and one timer per pending request.
 */
import { noTelemetry, type Telemetry } from '../platform/telemetry/telemetry.js';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { Compile } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import {
  agentChannelPath,
  agentLimits,
  agentProtocolVersion,
  type HubMoving,
  agentRequests,
  agentRequestTypes,
  Frame,
  Heartbeat,
  Hello,
  isStreamFrameType,
  streamLimits,
  MetricsFrame,
  ResultPayload,
  type AgentRequestType,
  type DiscoveryDefaults,
  type Welcome,
} from '@svc/protocol';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../platform/event-bus.js';
import { refuseUpgrade } from '../http/upgrade.js';
import { HubError } from '../platform/hub-error.js';
import { truncateForLog, type Logger } from '../platform/logger.js';
import { createRefusalLog, type RefusalLog } from '../platform/refusal-log.js';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  type AgentGateway,
  type AgentSessionInfo,
  type AgentStreams,
  type MetricsSink,
} from './agent-gateway.js';
import { cleanHello } from './hello.js';
import { createByteBudgets, replyAllowance, type ByteBudgets } from './byte-budget.js';
import type { Presence } from './presence.js';
import { createStreamTable, type StreamTable } from './streams.js';
import { moveAgents, type MoveOptions, type MoveOutcome } from './move-agents.js';

const gatewayDefaults = {
  requestTimeoutMs: 15_000,
  helloTimeoutMs: 10_000,
  keepaliveIntervalMs: 30_000,
  /** Pings a connection may leave unanswered before it is terminated. */
  missedPongs: 2,
  /** A request is refused rather than queued when this much is already waiting to go out to the agent. */
  maxBufferedBytes: 8 * 1024 * 1024,
  maxPendingPerAgent: 256,
  tickMs: 1_000,
  presenceFlushMs: 5_000,
  shutdownGraceMs: 1_000,
} as const;

/** WebSocket close codes the hub uses. */
const closeCodes = {
  policy: 1008,
  goingAway: 1001,
  internal: 1011,
  /** A newer connection of the same agent took over. */
  replaced: 4000,
} as const;

export interface AgentGatewayDeps {
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: MetricsSink;
  /**
   * The asset an upgrade request authenticates as (channel-auth.ts), or null to refuse it with 401. A thrown
   * HubError refuses it with that error's status (403 `https_required` for plain HTTP).
   */
  authenticate: (req: IncomingMessage) => Promise<{ assetId: string; remoteAddress?: string | null } | null>;
  heartbeatIntervalS: number;
  collectIntervalS: number;
  /** The fleet's service-discovery defaults, read at each welcome so a settings change reaches the next agent. */
  discoveryDefaults?: () => DiscoveryDefaults;
  requestTimeoutMs?: number;
  helloTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  maxBufferedBytes?: number;
  maxPendingPerAgent?: number;
  tickMs?: number;
  presenceFlushMs?: number;
  /** The presence writer (its writes go through the assets module's port). */
  presence: Presence;
  /** Told whenever isConnected(assetId) changes, for caches of what it answers. */
  onReadinessChange?: (assetId: string) => void;
  /** Shared with the HTTP request log and channel auth; one of its own if absent. */
  refusals?: RefusalLog;
  /** Counts frames and bytes in and out (the hub's /metrics). */
  telemetry?: Pick<Telemetry, 'agentFrame'>;
  /** Unsolicited bytes per agent (byte-budget.ts); tests pass small ones. */
  byteBudgets?: ByteBudgets;
}

export interface WebSocketAgentGateway extends AgentGateway, AgentStreams {
  /** Takes an HTTP upgrade for the agent channel path (the server's 'upgrade' event). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every connection (1001), marks their assets offline and stops the interval. */
  close(): Promise<void>;
}

/** What only the process's own gateway does (not the cluster's view over it). */
export interface AgentMover {
  /**
   * The stop of a draining process (decision 0055): refuses new agent connections (503) and tells each agent
   * here to reconnect elsewhere (`hub.moving`), in spread batches; resolves once they have gone or the wait
   * ends. close() ends what is left.
   */
  tellAgentsToMove(options?: MoveOptions): Promise<MoveOutcome>;
}

interface Pending {
  type: AgentRequestType;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** The largest reply this request pays for (byte-budget.ts). */
  replyBytes: number;
}

/** Requests that timed out whose late answer is still paid for by the request, per connection. */
const lateRepliesKept = 64;

interface Connection {
  ws: WebSocket;
  assetId: string;
  remoteAddress: string | null;
  openedAt: number;
  /** Set by a valid hello. */
  session: AgentSessionInfo | null;
  /** Welcome sent: requests may go out. */
  ready: boolean;
  /** The asset's registered connection (not replaced, not retired). */
  current: boolean;
  closing: boolean;
  pending: Map<string, Pending>;
  missedPongs: number;
  windowStart: number;
  /** Frames of the current second, all kinds (capped by the base limit plus each open stream's). */
  frames: number;
  /** Frames of the current second not paid by an open stream's own budget (capped by the base limit). */
  baseFrames: number;
  /** Reply allowances of requests that timed out, by id, oldest first. */
  late: Map<string, number>;
  /** Channel streams open on this connection (streams.ts). */
  streams: StreamTable;
}

interface Validator {
  Check(value: unknown): boolean;
  Errors(value: unknown): Iterable<{ instancePath: string; message: string }>;
}

const compile = (schema: TSchema): Validator => Compile(schema);

const frameCheck = compile(Frame);
const agentFrames = {
  hello: compile(Hello),
  heartbeat: compile(Heartbeat),
  metrics: compile(MetricsFrame),
  result: compile(ResultPayload),
};
const payloadChecks = new Map<string, Validator>(
  agentRequestTypes.map((t) => [t, compile(agentRequests[t].payload)]),
);
const resultChecks = new Map<string, Validator>(
  agentRequestTypes.map((t) => [t, compile(agentRequests[t].result)]),
);

/** The first problem a validator finds, as `/path: message`, for logs and error messages. */
function firstProblem(validator: Validator, value: unknown): string {
  for (const error of validator.Errors(value)) return `${error.instancePath || '/'}: ${error.message}`;
  return 'does not match the schema';
}

function sizeOf(data: RawData): number {
  if (Buffer.isBuffer(data)) return data.length;
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return data.byteLength;
}

function textOf(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

export function createAgentGateway(deps: AgentGatewayDeps): WebSocketAgentGateway & AgentMover {
  const { clock, logger, metrics } = deps;
  const telemetry = deps.telemetry ?? noTelemetry;
  const requestTimeoutMs = deps.requestTimeoutMs ?? gatewayDefaults.requestTimeoutMs;
  const helloTimeoutMs = deps.helloTimeoutMs ?? gatewayDefaults.helloTimeoutMs;
  const keepaliveIntervalMs = deps.keepaliveIntervalMs ?? gatewayDefaults.keepaliveIntervalMs;
  const maxBufferedBytes = deps.maxBufferedBytes ?? gatewayDefaults.maxBufferedBytes;
  const maxPending = deps.maxPendingPerAgent ?? gatewayDefaults.maxPendingPerAgent;
  const tickMs = deps.tickMs ?? gatewayDefaults.tickMs;
  const presenceFlushMs = deps.presenceFlushMs ?? gatewayDefaults.presenceFlushMs;
  const { presence } = deps;
  const refusals = deps.refusals ?? createRefusalLog({ logger });
  const budgets = deps.byteBudgets ?? createByteBudgets();

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: agentLimits.frameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  /** Registered connections by asset (after hello). */
  const connections = new Map<string, Connection>();
  /** Every open connection, for keepalive. */
  const all = new Set<Connection>();
  const awaitingHello = new Set<Connection>();
  let requestCounter = 0;
  let streamCounter = 0;
  let closed = false;
  /** Telling its agents to move: new ones are sent elsewhere. */
  let moving = false;
  /**
   * The keepalive round: where it is in `all` (a Set's iterator skips connections removed since and reaches
   * ones added), so each connection is pinged once per keepalive interval.
   */
  let pingRound = all.values();
  let pingCredit = 0;
  let lastFlush = performance.now();
  let lastBudgetSweep = performance.now();

  function failPending(conn: Connection): void {
    if (conn.pending.size === 0) return;
    const pending = [...conn.pending.values()];
    conn.pending.clear();
    for (const p of pending) {
      clearTimeout(p.timer);
      p.reject(new AgentOfflineError(conn.assetId));
    }
  }

  /** Takes a connection out of service: no new requests, pending ones fail, presence goes offline. */
  function retire(conn: Connection): void {
    awaitingHello.delete(conn);
    if (conn.ready) deps.onReadinessChange?.(conn.assetId);
    conn.ready = false;
    failPending(conn);
    conn.streams.closeAll('the agent disconnected');
    if (!conn.current) return;
    conn.current = false;
    if (connections.get(conn.assetId) === conn) connections.delete(conn.assetId);
    if (closed) return;
    presence.disconnected(conn.assetId).catch((error: unknown) => {
      logger.error({ err: error, asset_id: conn.assetId }, 'marking an agent offline failed');
    });
  }

  function closeConnection(conn: Connection, code: number, reason: string): void {
    if (conn.closing) return;
    conn.closing = true;
    retire(conn);
    try {
      conn.ws.close(code, reason.slice(0, 120));
    } catch {
      conn.ws.terminate();
    }
  }

  /** Closes with 1008, logged once per connection and through the refusal log. */
  function violation(conn: Connection, reason: string): void {
    if (conn.closing) return;
    if (refusals.admit(conn.remoteAddress, 'agent violation')) {
      logger.warn(
        { asset_id: conn.assetId, remote_address: conn.remoteAddress, reason: truncateForLog(reason, 256) },
        'agent channel closed: protocol violation',
      );
    }
    closeConnection(conn, closeCodes.policy, reason);
  }

  /** The largest reply a request waiting on this connection (or timed out on it lately) would pay for. */
  function largestReplyAllowance(conn: Connection): number {
    let largest = 0;
    for (const p of conn.pending.values()) largest = Math.max(largest, p.replyBytes);
    for (const bytes of conn.late.values()) largest = Math.max(largest, bytes);
    return largest;
  }

  /** What a frame's own request pays for it: a result answering a request, up to what that request allows. */
  function paidByRequest(conn: Connection, type: string, id: string): number {
    if (type !== 'result') return 0;
    return conn.pending.get(id)?.replyBytes ?? conn.late.get(id) ?? 0;
  }

  function send(conn: Connection, frame: { v: number; type: string; id: string; payload: unknown }): void {
    const text = JSON.stringify(frame);
    telemetry.agentFrame('out', Buffer.byteLength(text));
    conn.ws.send(text, (error) => {
      if (error) logger.debug({ err: error, asset_id: conn.assetId }, 'sending to an agent failed');
    });
  }

  function onHello(conn: Connection, id: string, payload: unknown): void {
    if (conn.session) {
      violation(conn, 'hello sent twice');
      return;
    }
    if (!agentFrames.hello.Check(payload)) {
      violation(conn, `invalid hello: ${firstProblem(agentFrames.hello, payload)}`);
      return;
    }
    const hello = cleanHello(payload as Hello);
    if (hello.protocol !== agentProtocolVersion) {
      violation(conn, `protocol ${hello.protocol} is not supported; this hub speaks ${agentProtocolVersion}`);
      return;
    }
    awaitingHello.delete(conn);
    const now = clock.now();
    conn.session = {
      assetId: conn.assetId,
      connectedAt: now,
      lastSeenAt: now,
      remoteAddress: conn.remoteAddress,
      hello,
    };
    const previous = connections.get(conn.assetId);
    if (previous && previous !== conn) {
      // One connection per agent: the newest wins (the old one may be a half-dead socket).
      previous.current = false;
      closeConnection(previous, closeCodes.replaced, 'replaced by a newer connection of this agent');
    }
    connections.set(conn.assetId, conn);
    conn.current = true;
    presence.connected(conn.assetId, hello, conn.remoteAddress).then(
      (exists) => {
        if (conn.closing) return;
        if (!exists) {
          violation(conn, 'the asset of this credential no longer exists');
          return;
        }
        const welcome: Welcome = {
          asset_id: conn.assetId,
          heartbeat_interval_s: deps.heartbeatIntervalS,
          collect_interval_s: deps.collectIntervalS,
          ...(deps.discoveryDefaults ? { discovery: deps.discoveryDefaults() } : {}),
        };
        send(conn, { v: agentProtocolVersion, type: 'welcome', id, payload: welcome });
        conn.ready = true;
        deps.onReadinessChange?.(conn.assetId);
      },
      (error: unknown) => {
        logger.error({ err: error, asset_id: conn.assetId }, 'marking an agent online failed');
        closeConnection(conn, closeCodes.internal, 'internal error');
      },
    );
  }

  function touch(conn: Connection): void {
    if (!conn.session) return;
    conn.session.lastSeenAt = clock.now();
    presence.seen(conn.assetId);
  }

  function onResult(conn: Connection, id: string, payload: unknown): void {
    const pending = conn.pending.get(id);
    if (!pending) {
      // A late answer to a request that timed out, or noise: nothing waits for it.
      conn.late.delete(id);
      logger.debug({ asset_id: conn.assetId, id }, 'agent result for no pending request');
      return;
    }
    conn.pending.delete(id);
    clearTimeout(pending.timer);
    if (!agentFrames.result.Check(payload)) {
      pending.reject(new AgentReplyError('failed', `the agent sent a malformed result for ${pending.type}`));
      return;
    }
    const result = payload as ResultPayload;
    if (!result.ok) {
      pending.reject(new AgentReplyError(result.error.code, result.error.message));
      return;
    }
    const check = resultChecks.get(pending.type);
    if (!check?.Check(result.data)) {
      const problem = check ? firstProblem(check, result.data) : 'unknown request type';
      logger.warn(
        { asset_id: conn.assetId, type: pending.type, problem },
        'agent result does not match its schema',
      );
      pending.reject(
        new AgentReplyError(
          'failed',
          `the agent answered ${pending.type} with a malformed result (${problem})`,
        ),
      );
      return;
    }
    pending.resolve(result.data);
  }

  /** Counts a frame against the base limit (streams' allowances are not for it); false once closed for it. */
  function spendBaseFrame(conn: Connection): boolean {
    conn.baseFrames += 1;
    if (conn.baseFrames <= agentLimits.framesPerSecond) return true;
    violation(conn, `more than ${agentLimits.framesPerSecond} frames per second outside streams`);
    return false;
  }

  function onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    telemetry.agentFrame('in', sizeOf(data));
    if (conn.closing) return;
    conn.missedPongs = 0;
    const now = performance.now();
    if (now - conn.windowStart >= 1000) {
      conn.windowStart = now;
      conn.frames = 0;
      conn.baseFrames = 0;
    }
    conn.frames += 1;
    // Before parsing, a bound on all frames: each open stream brings its own frame budget (checked per stream
    // in streams.ts). Frames that no open stream pays for keep the base limit, checked once parsed.
    const frameLimit =
      agentLimits.framesPerSecond + conn.streams.size * streamLimits.framesPerSecondPerStream;
    if (conn.frames > frameLimit) {
      violation(conn, `more than ${frameLimit} frames per second`);
      return;
    }
    if (isBinary) {
      violation(conn, 'binary frames are not part of the protocol');
      return;
    }
    // Before parsing: a frame that a waiting request and the budget together cannot pay for is never parsed.
    const size = sizeOf(data);
    const available = budgets.available(conn.assetId, now);
    const allowance = Math.max(largestReplyAllowance(conn), conn.streams.frameAllowance());
    if (size > Math.max(0, available) + allowance) {
      budgets.spend(conn.assetId, size, now);
      violation(
        conn,
        `over the byte budget: ${size} bytes sent unasked with ${Math.max(0, Math.floor(available))} left`,
      );
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(textOf(data));
    } catch {
      violation(conn, 'a frame is not valid JSON');
      return;
    }
    if (typeof frame === 'object' && frame !== null && 'v' in frame && frame.v !== agentProtocolVersion) {
      // Quoted from the frame: a string version is cut before quoting, anything else is named by its type.
      const { v } = frame;
      const version =
        typeof v === 'number'
          ? String(v)
          : typeof v === 'string'
            ? JSON.stringify(truncateForLog(v, 32))
            : typeof v;
      violation(conn, `frame version ${version} is not supported; this hub speaks ${agentProtocolVersion}`);
      return;
    }
    if (!frameCheck.Check(frame)) {
      violation(conn, `invalid frame: ${firstProblem(frameCheck, frame)}`);
      return;
    }
    const { type, id, payload } = frame as Frame;
    if (isStreamFrameType(type)) {
      if (!conn.session) {
        violation(conn, `${type.slice(0, 64)} before hello`);
        return;
      }
      // A frame of an open stream is paid by its window; one for no open stream draws on the budget.
      if (conn.streams.receive(type, payload)) return;
      if (!spendBaseFrame(conn)) return;
      if (budgets.spend(conn.assetId, size, now) < 0)
        violation(conn, `over the byte budget: ${size} bytes sent unasked`);
      return;
    }
    if (!spendBaseFrame(conn)) return;
    const paid = paidByRequest(conn, type, id);
    if (size > paid && budgets.spend(conn.assetId, size - paid, now) < 0) {
      violation(conn, `over the byte budget: ${size - paid} bytes sent unasked`);
      return;
    }
    if (type !== 'hello' && !conn.session) {
      violation(conn, `${type.slice(0, 64)} before hello`);
      return;
    }
    switch (type) {
      case 'hello':
        onHello(conn, id, payload);
        return;
      case 'heartbeat':
        if (!agentFrames.heartbeat.Check(payload)) {
          if (refusals.admit(conn.remoteAddress, 'invalid agent heartbeat')) {
            logger.warn(
              { asset_id: conn.assetId, problem: firstProblem(agentFrames.heartbeat, payload) },
              'invalid agent heartbeat dropped',
            );
          }
          return;
        }
        touch(conn);
        return;
      case 'metrics': {
        if (!agentFrames.metrics.Check(payload)) {
          logger.warn(
            { asset_id: conn.assetId, problem: firstProblem(agentFrames.metrics, payload) },
            'invalid agent metrics dropped',
          );
          return;
        }
        touch(conn);
        const samples = (payload as MetricsFrame).samples.filter((s) => !Number.isNaN(Date.parse(s.ts)));
        if (samples.length === 0) return;
        try {
          metrics.add(conn.assetId, samples);
        } catch (error) {
          logger.error({ err: error, asset_id: conn.assetId }, 'storing agent metrics failed');
        }
        return;
      }
      case 'result':
        touch(conn);
        onResult(conn, id, payload);
        return;
      default:
        violation(conn, `unknown frame type ${JSON.stringify(type.slice(0, 64))}`);
    }
  }

  function onConnection(ws: WebSocket, assetId: string, remoteAddress: string | null): void {
    const now = performance.now();
    const conn: Connection = {
      ws,
      assetId,
      remoteAddress,
      openedAt: now,
      session: null,
      ready: false,
      current: false,
      closing: false,
      pending: new Map(),
      missedPongs: 0,
      windowStart: now,
      frames: 0,
      baseFrames: 0,
      late: new Map(),
      streams: createStreamTable({
        assetId,
        now: () => performance.now(),
        send: (text) => {
          ws.send(text, (error) => {
            if (error) logger.debug({ err: error, asset_id: assetId }, 'sending to an agent failed');
          });
        },
        violation: (reason) => {
          violation(conn, reason);
        },
      }),
    };
    all.add(conn);
    awaitingHello.add(conn);
    ws.on('message', (data, isBinary) => {
      try {
        onMessage(conn, data, isBinary);
      } catch (error) {
        logger.error({ err: error, asset_id: assetId }, 'agent frame handling failed');
        closeConnection(conn, closeCodes.internal, 'internal error');
      }
    });
    ws.on('pong', () => {
      conn.missedPongs = 0;
    });
    ws.on('error', (error) => {
      // ws closes the socket itself (e.g. 1009 for a frame over maxPayload); 'close' follows.
      logger.warn({ err: error, asset_id: assetId }, 'agent channel error');
    });
    ws.on('close', () => {
      all.delete(conn);
      conn.closing = true;
      retire(conn);
    });
  }

  function tick(): void {
    const now = performance.now();
    for (const conn of awaitingHello) {
      if (now - conn.openedAt > helloTimeoutMs)
        violation(conn, `no hello within ${Math.round(helloTimeoutMs / 1000)} s`);
    }
    if (now - lastBudgetSweep >= 60_000) {
      lastBudgetSweep = now;
      budgets.sweep(now, (assetId) => connections.has(assetId));
    }
    if (now - lastFlush >= presenceFlushMs) {
      lastFlush = now;
      presence.flush().catch((error: unknown) => {
        logger.error({ err: error }, 'writing agent presence failed');
      });
    }
  }

  /**
   * Pings the next share of connections, so a round takes about one keepalive interval. Spread over the round,
   * not all in one turn: a ping is a TLS write, and sixteen thousand of them at once held the event loop for
   * seconds (decision 0057).
   */
  function pingSome(): void {
    // Fractions carry over: with few connections a ping goes out every few passes, not one each pass.
    pingCredit = Math.min(all.size, pingCredit + (all.size * pingEveryMs) / keepaliveIntervalMs);
    const quota = Math.floor(pingCredit);
    pingCredit -= quota;
    for (let sent = 0; sent < quota; sent++) {
      let next = pingRound.next();
      if (next.done) {
        pingRound = all.values();
        next = pingRound.next();
        if (next.done) return;
      }
      const conn = next.value;
      if (conn.missedPongs >= gatewayDefaults.missedPongs) {
        logger.info({ asset_id: conn.assetId }, 'agent stopped answering pings; connection terminated');
        conn.closing = true;
        retire(conn);
        conn.ws.terminate();
        continue;
      }
      conn.missedPongs += 1;
      try {
        conn.ws.ping();
      } catch {
        // Not open any more; 'close' will follow.
      }
    }
  }

  const timer = setInterval(tick, tickMs);
  timer.unref();
  const pingEveryMs = Math.min(tickMs, 100);
  const pingTimer = setInterval(pingSome, pingEveryMs);
  pingTimer.unref();

  return {
    isConnected(assetId) {
      return connections.get(assetId)?.ready === true;
    },

    connectedCount() {
      let n = 0;
      for (const conn of connections.values()) if (conn.ready) n += 1;
      return n;
    },

    session(assetId) {
      const conn = connections.get(assetId);
      return conn?.ready && conn.session ? { ...conn.session } : null;
    },

    sessions() {
      const out: AgentSessionInfo[] = [];
      for (const conn of connections.values()) if (conn.ready && conn.session) out.push({ ...conn.session });
      return out;
    },

    request(assetId, type, payload, options = {}) {
      const conn = connections.get(assetId);
      if (!conn?.ready || conn.closing) return Promise.reject(new AgentOfflineError(assetId));
      const payloadCheck = payloadChecks.get(type);
      if (!payloadCheck?.Check(payload)) {
        const problem = payloadCheck ? firstProblem(payloadCheck, payload) : 'unknown request type';
        return Promise.reject(
          new AgentReplyError('invalid_argument', `invalid ${type} request (${problem})`),
        );
      }
      if (conn.ws.bufferedAmount > maxBufferedBytes) {
        return Promise.reject(
          new AgentReplyError('failed', 'the connection to the agent is backed up; try again shortly'),
        );
      }
      if (conn.pending.size >= maxPending) {
        return Promise.reject(
          new AgentReplyError('failed', `more than ${maxPending} requests are waiting for this agent`),
        );
      }
      requestCounter += 1;
      const id = `r${requestCounter.toString(36)}`;
      const text = JSON.stringify({ v: agentProtocolVersion, type, id, payload });
      if (Buffer.byteLength(text) > agentLimits.frameBytes) {
        return Promise.reject(
          new AgentReplyError('too_large', `the ${type} request is larger than a frame may be`),
        );
      }
      const timeoutMs = options.timeoutMs ?? requestTimeoutMs;
      const replyBytes = replyAllowance(type, payload);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          if (!conn.pending.delete(id)) return;
          // The agent may still answer: its answer stays paid for by this request.
          conn.late.set(id, replyBytes);
          if (conn.late.size > lateRepliesKept) conn.late.delete(conn.late.keys().next().value ?? id);
          reject(new AgentTimeoutError(assetId, type));
        }, timeoutMs);
        timer.unref();
        conn.pending.set(id, {
          type,
          resolve: resolve as (value: unknown) => void,
          reject,
          timer,
          replyBytes,
        });
        telemetry.agentFrame('out', Buffer.byteLength(text));
        conn.ws.send(text, (error) => {
          if (!error) return;
          const p = conn.pending.get(id);
          if (!p) return;
          conn.pending.delete(id);
          clearTimeout(p.timer);
          reject(new AgentOfflineError(assetId));
        });
      });
    },

    openStream(assetId, options) {
      const conn = connections.get(assetId);
      if (!conn?.ready || conn.closing) return Promise.reject(new AgentOfflineError(assetId));
      if (conn.ws.bufferedAmount > maxBufferedBytes) {
        return Promise.reject(
          new AgentReplyError('failed', 'the connection to the agent is backed up; try again shortly'),
        );
      }
      streamCounter += 1;
      return conn.streams.open(`s${streamCounter.toString(36)}`, options);
    },

    disconnect(assetId, reason) {
      const conn = connections.get(assetId);
      if (conn) closeConnection(conn, closeCodes.policy, reason);
      // A connection that upgraded with the same credential but has not said hello yet goes too.
      for (const waiting of awaitingHello) {
        if (waiting.assetId === assetId) closeConnection(waiting, closeCodes.policy, reason);
      }
    },

    handleUpgrade(req, socket, head) {
      const onSocketError = (error: Error) => {
        logger.debug({ err: error }, 'agent upgrade socket error');
      };
      socket.on('error', onSocketError);
      const path = (req.url ?? '').split('?')[0];
      if (path !== agentChannelPath) {
        refuseUpgrade(socket, new HubError('not_found', `No WebSocket endpoint at ${path ?? ''}.`));
        return;
      }
      if (closed || moving) {
        refuseUpgrade(socket, new HubError('unavailable', 'The hub is shutting down.'));
        return;
      }
      deps.authenticate(req).then(
        (peer) => {
          if (!peer) {
            refuseUpgrade(
              socket,
              new HubError('unauthorized', 'The agent credential is not valid or was revoked.'),
            );
            return;
          }
          if (closed || moving) {
            refuseUpgrade(socket, new HubError('unavailable', 'The hub is shutting down.'));
            return;
          }
          wss.handleUpgrade(req, socket, head, (ws) => {
            socket.off('error', onSocketError);
            onConnection(ws, peer.assetId, peer.remoteAddress ?? req.socket.remoteAddress ?? null);
          });
        },
        (error: unknown) => {
          if (error instanceof HubError) {
            refuseUpgrade(socket, error);
            return;
          }
          logger.error({ err: error }, 'agent channel authentication failed');
          refuseUpgrade(socket, new HubError('internal_error'));
        },
      );
    },

    async tellAgentsToMove(options) {
      if (closed) return { told: 0, left: 0, ms: 0 };
      moving = true;
      const targets = [...connections.values()].filter((conn) => conn.ready);
      let id = 0;
      const outcome = await moveAgents(
        targets,
        {
          stillHere: (conn) => all.has(conn) && !conn.closing,
          notify: (conn, withinMs) => {
            id += 1;
            const payload: HubMoving = { within_ms: withinMs };
            send(conn, { v: agentProtocolVersion, type: 'hub.moving', id: `moving-${String(id)}`, payload });
            return true;
          },
        },
        options,
      );
      logger.info(
        { told: outcome.told, left: outcome.left, ms: outcome.ms },
        'told the agents to move to the other processes',
      );
      return outcome;
    },

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      clearInterval(pingTimer);
      const assetIds = [...connections.keys()];
      const open = [...all];
      for (const conn of open) closeConnection(conn, closeCodes.goingAway, 'hub shutting down');
      await presence.flush().catch((error: unknown) => {
        logger.error({ err: error }, 'writing agent presence failed');
      });
      await presence.allDisconnected(assetIds).catch((error: unknown) => {
        logger.error({ err: error }, 'marking agents offline at shutdown failed');
      });
      const deadline = performance.now() + gatewayDefaults.shutdownGraceMs;
      while (all.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const conn of all) conn.ws.terminate();
      await new Promise<void>((resolve) => {
        wss.close(() => {
          resolve();
        });
      });
    },
  };
}
