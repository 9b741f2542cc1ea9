/**
 * The agent's side of the channel: one WebSocket to `<hub>/api/v1/agent/channel`, authenticated with the
 * agent credential, TLS verified against the CA saved at enrollment (the system CAs when none was saved).
 *
 * On open it sends `hello` and waits for `welcome`; only then does it accept requests, heartbeat and send
 * metrics. Every incoming frame is checked against the catalog: a frame that is not a valid envelope, or a
 * bad `welcome`, closes the connection (1008); a request with a bad payload is answered `invalid_argument`.
 *
 * Several hub addresses (`hub_url`, then `hub_urls`; decision 0055): a failed connect or a lost connection
 * moves on to the next address at once (a few hundred milliseconds apart, so a dead process's agents do not
 * reach the others in the same millisecond); only once every address of a round has failed does the capped,
 * jittered exponential backoff apply (@svc/protocol's ReconnectBackoff, decision 0089: a 4 s ceiling while a
 * hub lost less than two minutes ago refuses connects, 30 s after that and for a hub that answers busy; a busy
 * hub's `Retry-After` is honoured instead, decision 0102). With one address, as before: the backoff after every
 * close. A
 * `hub.moving` notice (a draining process) closes the connection after the random delay it allows and
 * reconnects to the next address (the same one behind a balancer) without the backoff.
 *
 * TLS session resumption (decision 0072): the agent keeps the last session ticket a hub address gave it and
 * offers it when it connects to that address again, so a reconnect (after a hub restart, a move, a lost
 * link) skips the certificate exchange and verification. A ticket the hub no longer accepts costs nothing
 * but the full handshake it would have done anyway.
 */
import { isIP } from 'node:net';
import { TLSSocket } from 'node:tls';
import WebSocket, { type RawData } from 'ws';
import {
  agentChannelPath,
  agentLimits,
  hubMovingMaxDelayMs,
  agentReconnectPolicy,
  agentRequests,
  isStreamFrameType,
  parseRetryAfter,
  ReconnectBackoff,
  type ReconnectCause,
  type ReconnectPolicy,
  type Heartbeat,
  type Hello,
  type ResultPayload,
  type Welcome,
} from '@svc/protocol';
import type { MetricsBuffer } from '../collectors/metrics.js';
import type { Logger } from '../logger.js';
import type { Dispatch } from './dispatch.js';
import { checkFrame, checkHubMoving, checkWelcome, describeProblem, encodeFrame } from './frames.js';
import { StreamHost, type StreamOpeners } from './streams.js';

export type ChannelEvent =
  | { type: 'connecting'; attempt: number; hubUrl: string }
  | { type: 'moving'; delayMs: number }
  | { type: 'open' }
  /** A TLS connection is up; `resumed` when the hub accepted the session offered (no full handshake). */
  | { type: 'tls'; resumed: boolean }
  | { type: 'welcome'; welcome: Welcome }
  | { type: 'protocol_error'; message: string }
  | { type: 'error'; message: string }
  | { type: 'closed'; code: number; reason: string; welcomed: boolean }
  | { type: 'reconnect_scheduled'; attempt: number; delayMs: number };

export interface ChannelOptions {
  hubUrl: string;
  /** Further hub addresses (`hub_urls`), tried in turn after `hubUrl` when a connection fails or is lost. */
  hubUrls?: readonly string[];
  /** Read at every connection, so a rotated credential is used from the next one on. */
  getCredential: () => string;
  caPem: string | null;
  hello: () => Promise<Hello>;
  heartbeat: () => Heartbeat;
  dispatch: Dispatch;
  heartbeatIntervalS: number;
  logger: Logger;
  metrics?: MetricsBuffer;
  /** The reconnect policy of @svc/protocol (decision 0089), tests override parts. */
  backoff?: Partial<ReconnectPolicy>;
  random?: () => number;
  welcomeTimeoutMs?: number;
  maxConcurrentRequests?: number;
  /** The stream kinds this agent opens (decision 0028); none when absent. */
  streamOpeners?: StreamOpeners;
  onEvent?: (event: ChannelEvent) => void;
}

/** Loopback hosts may use plain `ws://`: the credential never leaves the machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}

/** `https://hub:8443` → `wss://hub:8443/api/v1/agent/channel`; plain http only to a loopback hub. */
export function channelUrl(hubUrl: string): string {
  const url = new URL(hubUrl);
  if (url.protocol === 'http:') {
    if (!isLoopbackHost(url.hostname))
      throw new Error(`refusing to send the agent credential over plain HTTP to ${url.hostname}; use https`);
    url.protocol = 'ws:';
  } else if (url.protocol === 'https:') {
    url.protocol = 'wss:';
  } else {
    throw new Error(`unsupported hub URL ${hubUrl}`);
  }
  url.pathname = `${url.pathname.replace(/\/+$/, '')}${agentChannelPath}`;
  url.search = '';
  url.hash = '';
  return url.toString();
}

const closeCodes = { normal: 1000, unsupportedData: 1003, invalidPayload: 1007, policy: 1008 } as const;
/**
 * Between two addresses of one round: a short random pause, so that the agents of a process that died do not
 * all reach the next one in the same millisecond, yet are there within half a second.
 */
const nextAddressSpreadMs = 400;
/** Above this many bytes waiting in the socket, metrics wait in their buffer instead. */
const sendBufferLimit = 4 * 1024 * 1024;

export class AgentChannel {
  private ws: WebSocket | null = null;
  /** The hub addresses in the order tried, and the one in use. */
  private readonly addresses: string[];
  private addressIndex = 0;
  /** Failed connects since the last round began; a round is one try of each address. */
  private failedInRound = 0;
  /** The hub asked this connection to move (`hub.moving`): the close that follows is no failure. */
  private moving = false;
  private moveTimer: NodeJS.Timeout | undefined;
  private stopped = true;
  private welcomed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private welcomeTimer: NodeJS.Timeout | undefined;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private lastPongAt = 0;
  private readonly inFlight = new Set<string>();
  private readonly backoff: ReconnectBackoff;
  private readonly minMs: number;
  /** The error code of the current attempt, if any: ECONNREFUSED says the hub is down, not busy. */
  private errorCode: string | undefined;
  /** The current attempt's upgrade was answered with this status, and a busy hub's Retry-After (ms). */
  private refusal: { status: number; retryAfterMs: number | null } | undefined;
  private heartbeatIntervalS: number;
  private closedWaiters: (() => void)[] = [];
  /** The streams of the current connection, from its welcome on. */
  private streams: StreamHost | null = null;
  /** The last TLS session (ticket) each hub address gave, offered when connecting to it again. */
  private readonly tlsSessions = new Map<string, Buffer>();

  constructor(private readonly options: ChannelOptions) {
    const policy = { ...agentReconnectPolicy, ...options.backoff };
    this.minMs = policy.minMs;
    this.backoff = new ReconnectBackoff(policy, options.random ?? Math.random);
    this.heartbeatIntervalS = options.heartbeatIntervalS;
    this.addresses = [...new Set([options.hubUrl, ...(options.hubUrls ?? [])])];
    // Refuse a bad URL at construction, not on the first retry.
    for (const address of this.addresses) channelUrl(address);
  }

  /** The hub address of the current (or next) connection. */
  get hubUrl(): string {
    return this.addresses[this.addressIndex] ?? this.options.hubUrl;
  }

  /** Whether the hub has welcomed this connection. */
  get isReady(): boolean {
    return this.welcomed && this.ws?.readyState === WebSocket.OPEN;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  /** Closes the connection and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.moveTimer);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise<void>((resolve) => this.closedWaiters.push(resolve));
    ws.close(closeCodes.normal, 'agent stopping');
    const force = setTimeout(() => {
      ws.terminate();
    }, 2_000);
    await closed;
    clearTimeout(force);
  }

  /** Sends buffered metric samples, in frames of at most agentLimits.metricsPerFrame, while the socket keeps up. */
  flushMetrics(): void {
    const buffer = this.options.metrics;
    const ws = this.ws;
    if (!buffer || !ws || !this.isReady) return;
    while (buffer.size > 0 && ws.bufferedAmount < sendBufferLimit) {
      const samples = buffer.take(agentLimits.metricsPerFrame);
      try {
        ws.send(encodeFrame('metrics', { samples }));
      } catch (error) {
        buffer.putBack(samples);
        this.options.logger.warn('cannot send metrics', { error: (error as Error).message });
        return;
      }
    }
  }

  private emit(event: ChannelEvent): void {
    this.options.onEvent?.(event);
  }

  private connect(): void {
    if (this.stopped) return;
    this.emit({ type: 'connecting', attempt: this.backoff.attempt('down'), hubUrl: this.hubUrl });
    this.errorCode = undefined;
    this.refusal = undefined;
    const hubUrl = this.hubUrl;
    const url = channelUrl(hubUrl);
    const session = this.tlsSessions.get(hubUrl);
    const ws = new WebSocket(url, {
      headers: { Authorization: `Bearer ${this.options.getCredential()}` },
      ...(this.options.caPem ? { ca: this.options.caPem } : {}),
      ...(session ? { session } : {}),
      maxPayload: agentLimits.frameBytes,
      handshakeTimeout: 15_000,
      perMessageDeflate: false,
      followRedirects: false,
    });
    this.ws = ws;
    this.welcomed = false;
    this.moving = false;

    ws.on('upgrade', (response) => {
      this.keepTlsSession(hubUrl, response.socket);
    });
    ws.on('open', () => {
      this.lastPongAt = Date.now();
      this.emit({ type: 'open' });
      this.welcomeTimer = setTimeout(() => {
        this.protocolError(ws, 'no welcome from the hub in time');
      }, this.options.welcomeTimeoutMs ?? 15_000);
      this.options
        .hello()
        .then((hello) => {
          if (ws.readyState === WebSocket.OPEN) ws.send(encodeFrame('hello', hello));
        })
        .catch((error: unknown) => {
          this.options.logger.error('cannot build hello', { error: (error as Error).message });
          ws.close(closeCodes.normal, 'agent error');
        });
    });
    ws.on('message', (data, isBinary) => {
      this.onMessage(ws, data, isBinary);
    });
    ws.on('pong', () => {
      this.lastPongAt = Date.now();
    });
    ws.on('unexpected-response', (_request, response) => {
      // The upgrade was answered without a WebSocket: a busy hub says in Retry-After when to come back
      // (decision 0102). ws would only say the status; terminate() ends the attempt as it would ('error',
      // then 'close').
      const status = response.statusCode ?? 0;
      const retryAfterMs =
        status === 503 || status === 429
          ? parseRetryAfter(response.headers['retry-after'], Date.now())
          : null;
      this.refusal = { status, retryAfterMs };
      response.resume();
      // A 401 means the credential was refused or revoked.
      this.options.logger.warn('channel upgrade refused', {
        status,
        ...(retryAfterMs !== null ? { retry_after_ms: retryAfterMs } : {}),
      });
      this.emit({ type: 'error', message: `Unexpected server response: ${String(status)}` });
      ws.terminate();
    });
    ws.on('error', (error) => {
      // Said already for an upgrade answered with a status (above).
      if (this.refusal) return;
      // 'close' follows; say why here.
      this.errorCode = (error as NodeJS.ErrnoException).code;
      this.options.logger.warn('channel error', { error: error.message });
      this.emit({ type: 'error', message: error.message });
    });
    ws.on('close', (code, reasonBuffer) => {
      this.onClose(ws, code, reasonBuffer.toString('utf8'));
    });
  }

  /**
   * Saves the session the hub gave this connection, and any newer ticket it sends later. TLS 1.3 tickets
   * arrive after the handshake, before the upgrade's answer; a ticket is only for the address that issued it.
   */
  private keepTlsSession(hubUrl: string, socket: unknown): void {
    if (!(socket instanceof TLSSocket)) return;
    const save = (session: Buffer | undefined): void => {
      if (session) this.tlsSessions.set(hubUrl, session);
    };
    save(socket.getSession());
    socket.on('session', save);
    this.emit({ type: 'tls', resumed: socket.isSessionReused() });
  }

  private onClose(ws: WebSocket, code: number, reason: string): void {
    clearTimeout(this.welcomeTimer);
    clearTimeout(this.moveTimer);
    this.moveTimer = undefined;
    clearInterval(this.heartbeatTimer);
    this.inFlight.clear();
    this.streams?.closeAll();
    this.streams = null;
    const welcomed = this.welcomed;
    this.welcomed = false;
    if (this.ws === ws) this.ws = null;
    this.emit({ type: 'closed', code, reason, welcomed });
    if (this.stopped) {
      for (const resolve of this.closedWaiters.splice(0)) resolve();
      return;
    }
    const cause: ReconnectCause = welcomed ? 'lost' : this.errorCode === 'ECONNREFUSED' ? 'down' : 'busy';
    const attempt = this.backoff.attempt(cause);
    const delayMs = this.nextConnectDelay(welcomed, cause, this.refusal?.retryAfterMs ?? null);
    this.emit({ type: 'reconnect_scheduled', attempt, delayMs });
    this.options.logger.info('channel closed; reconnecting', {
      code,
      reason: reason || undefined,
      in_ms: delayMs,
      ...(this.addresses.length > 1 ? { hub: this.hubUrl } : {}),
    });
    this.reconnectTimer = setTimeout(() => {
      this.connect();
    }, delayMs);
  }

  /**
   * Where and when to connect next, after a close: the next address of the round soon, the backoff once a
   * whole round failed. A move the hub asked for has already waited its random delay: at once.
   */
  private nextConnectDelay(welcomed: boolean, cause: ReconnectCause, retryAfterMs: number | null): number {
    const random = this.options.random ?? Math.random;
    const moved = this.moving;
    this.moving = false;
    const several = this.addresses.length > 1;
    if (several) this.addressIndex = (this.addressIndex + 1) % this.addresses.length;
    if (moved) {
      this.failedInRound = 0;
      return 0;
    }
    if (!several) return this.backoff.next(cause, Date.now(), retryAfterMs);
    // A connection that was up and is lost begins a round at the next address; a failed connect counts in it.
    this.failedInRound = welcomed ? 0 : this.failedInRound + 1;
    if (this.failedInRound < this.addresses.length)
      return this.minMs + Math.floor(random() * nextAddressSpreadMs);
    this.failedInRound = 0;
    return this.backoff.next(cause, Date.now(), retryAfterMs);
  }

  /**
   * `hub.moving`: the process is draining. Close after a random delay up to what it allows (so its agents
   * spread over the others), then reconnect at once.
   */
  private onMoving(ws: WebSocket, payload: unknown): void {
    if (!checkHubMoving.Check(payload)) {
      this.protocolError(ws, `invalid hub.moving: ${describeProblem(checkHubMoving, payload)}`);
      return;
    }
    if (this.moveTimer !== undefined && this.ws === ws) return;
    const random = this.options.random ?? Math.random;
    const delayMs = Math.floor(random() * Math.min(payload.within_ms, hubMovingMaxDelayMs));
    this.options.logger.info('the hub is stopping; moving to another', { in_ms: delayMs });
    this.emit({ type: 'moving', delayMs });
    this.moveTimer = setTimeout(() => {
      this.moveTimer = undefined;
      if (this.ws !== ws || ws.readyState !== WebSocket.OPEN) return;
      this.moving = true;
      ws.close(closeCodes.normal, 'moving to another hub');
    }, delayMs);
  }

  private protocolError(ws: WebSocket, message: string, code: number = closeCodes.policy): void {
    this.options.logger.warn('protocol error from the hub; closing', { problem: message });
    this.emit({ type: 'protocol_error', message });
    ws.close(code, 'protocol error');
  }

  private onMessage(ws: WebSocket, data: RawData, isBinary: boolean): void {
    if (isBinary) {
      this.protocolError(ws, 'binary frame', closeCodes.unsupportedData);
      return;
    }
    let frame: unknown;
    try {
      const bytes = Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.isBuffer(data)
          ? data
          : Buffer.from(data);
      frame = JSON.parse(bytes.toString('utf8'));
    } catch {
      this.protocolError(ws, 'frame is not JSON', closeCodes.invalidPayload);
      return;
    }
    if (!checkFrame.Check(frame)) {
      this.protocolError(ws, `invalid frame: ${describeProblem(checkFrame, frame)}`);
      return;
    }
    if (frame.type === 'welcome') {
      this.onWelcome(ws, frame.payload);
      return;
    }
    if (!this.welcomed) {
      this.protocolError(ws, `${frame.type} before welcome`);
      return;
    }
    if (frame.type === 'hub.moving') {
      this.onMoving(ws, frame.payload);
      return;
    }
    if (isStreamFrameType(frame.type)) {
      this.streams?.handle(frame.type, frame.payload);
      return;
    }
    if (!(frame.type in agentRequests)) {
      // An envelope we understand with a type we do not: answer, so the hub's caller is not left waiting.
      this.sendResult(ws, frame.id, {
        ok: false,
        error: { code: 'unsupported', message: `unknown request type ${frame.type}` },
      });
      return;
    }
    this.onRequest(ws, frame.type, frame.id, frame.payload);
  }

  private onWelcome(ws: WebSocket, payload: unknown): void {
    if (!checkWelcome.Check(payload)) {
      this.protocolError(ws, `invalid welcome: ${describeProblem(checkWelcome, payload)}`);
      return;
    }
    if (this.welcomed) return; // a repeated welcome changes nothing
    clearTimeout(this.welcomeTimer);
    this.welcomed = true;
    this.backoff.welcomed();
    this.streams = new StreamHost({
      openers: this.options.streamOpeners ?? {},
      logger: this.options.logger,
      send: (text) => {
        if (ws.readyState === WebSocket.OPEN) ws.send(text);
      },
    });
    // Never heartbeat less often than the hub expects, or it would mark us offline.
    this.heartbeatIntervalS = Math.max(
      1,
      Math.min(this.options.heartbeatIntervalS, payload.heartbeat_interval_s),
    );
    this.options.logger.info('connected to the hub', {
      asset_id: payload.asset_id,
      heartbeat_s: this.heartbeatIntervalS,
    });
    this.startHeartbeat(ws);
    this.emit({ type: 'welcome', welcome: payload });
    this.flushMetrics();
  }

  private startHeartbeat(ws: WebSocket): void {
    clearInterval(this.heartbeatTimer);
    const intervalMs = this.heartbeatIntervalS * 1000;
    this.heartbeatTimer = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return;
      // A hub that stopped answering pings for two intervals is gone even if TCP has not noticed.
      if (Date.now() - this.lastPongAt > 2 * intervalMs + 10_000) {
        this.options.logger.warn('hub stopped answering; reconnecting');
        ws.terminate();
        return;
      }
      try {
        ws.send(encodeFrame('heartbeat', this.options.heartbeat()));
        ws.ping();
      } catch (error) {
        this.options.logger.warn('cannot send heartbeat', { error: (error as Error).message });
      }
      this.flushMetrics();
    }, intervalMs);
  }

  private onRequest(ws: WebSocket, type: string, id: string, payload: unknown): void {
    if (this.inFlight.has(id)) {
      this.options.logger.warn('duplicate request id ignored', { id, type });
      return;
    }
    if (this.inFlight.size >= (this.options.maxConcurrentRequests ?? 64)) {
      this.sendResult(ws, id, {
        ok: false,
        error: { code: 'failed', message: 'the agent is busy; try again' },
      });
      return;
    }
    this.inFlight.add(id);
    this.options
      .dispatch(type, payload)
      .then((result) => {
        // A result for a connection that has since closed has nobody waiting for it.
        if (this.ws === ws && this.inFlight.delete(id)) this.sendResult(ws, id, result);
      })
      .catch((error: unknown) => {
        this.inFlight.delete(id);
        this.options.logger.error('dispatch failed', { type, error: (error as Error).message });
      });
  }

  private sendResult(ws: WebSocket, id: string, result: ResultPayload): void {
    if (ws.readyState !== WebSocket.OPEN) return;
    let text = encodeFrame('result', result, id);
    if (Buffer.byteLength(text) > agentLimits.frameBytes) {
      text = encodeFrame(
        'result',
        { ok: false, error: { code: 'too_large', message: 'the result is larger than a frame may be' } },
        id,
      );
    }
    ws.send(text);
  }
}
