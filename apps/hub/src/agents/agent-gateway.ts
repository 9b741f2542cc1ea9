/**
 * What the rest of the hub sees of connected agents. The gateway (gateway.ts) implements it over WebSockets;
 * operation services (exec, files, system, power) depend only on this interface, and their tests may pass a
 * fake that implements it.
 */
import type {
  AgentErrorCode,
  AgentRequestPayload,
  AgentRequestResult,
  AgentRequestType,
  Hello,
  MetricSample,
  StreamExit,
  StreamKind,
  StreamOpenedInfo,
  StreamParams,
} from '@svc/protocol';

export interface AgentSessionInfo {
  assetId: string;
  connectedAt: Date;
  lastSeenAt: Date;
  remoteAddress: string | null;
  hello: Hello;
}

export interface AgentRequestOptions {
  /** How long to wait for the result; the default suits quick calls (15 s). */
  timeoutMs?: number;
}

export interface AgentGateway {
  isConnected(assetId: string): boolean;
  connectedCount(): number;
  session(assetId: string): AgentSessionInfo | null;
  sessions(): AgentSessionInfo[];
  /**
   * Sends a request to the asset's agent and resolves with its validated result. Rejects with
   * AgentOfflineError (not connected, or it went away), AgentTimeoutError, or AgentReplyError (the agent
   * answered with an error code).
   */
  request<T extends AgentRequestType>(
    assetId: string,
    type: T,
    payload: AgentRequestPayload<T>,
    options?: AgentRequestOptions,
  ): Promise<AgentRequestResult<T>>;
  /**
   * The same request to many agents (a fan-out): one promise per item, in order, each settling as `request`
   * would. A gateway of a cluster sends the items another process holds in batches, one per holder
   * (decision 0057); absent, `requestEach` sends them one by one.
   */
  requestMany?<T extends AgentRequestType>(
    type: T,
    items: readonly AgentRequestItem<T>[],
    options?: AgentRequestOptions,
  ): Promise<AgentRequestResult<T>>[];
  /** Closes the asset's connection (credential revoked, asset deleted). */
  disconnect(assetId: string, reason: string): void;
}

/** One target of `requestMany`. */
export interface AgentRequestItem<T extends AgentRequestType> {
  assetId: string;
  payload: AgentRequestPayload<T>;
}

/** `requestMany` where the gateway has it, otherwise one `request` per item. */
export function requestEach<T extends AgentRequestType>(
  gateway: AgentGateway,
  type: T,
  items: readonly AgentRequestItem<T>[],
  options?: AgentRequestOptions,
): Promise<AgentRequestResult<T>>[] {
  if (gateway.requestMany) return gateway.requestMany(type, items, options);
  return items.map((item) => gateway.request(item.assetId, type, item.payload, options));
}

export class AgentOfflineError extends Error {
  constructor(readonly assetId: string) {
    super(`agent of ${assetId} is not connected`);
    this.name = 'AgentOfflineError';
  }
}

/**
 * The agent is held by another hub process and the cluster bus that reaches it is down: the call did not reach
 * it, or (the bus went down on the way) its answer cannot come back. Not "offline": the agent may be connected
 * and serving; the caller retries once the processes reach each other.
 */
export class ClusterUnavailableCallError extends Error {
  constructor(readonly assetId: string) {
    super(`the hub process holding the agent of ${assetId} cannot be reached now: the cluster bus is down`);
    this.name = 'ClusterUnavailableCallError';
  }
}

export class AgentTimeoutError extends Error {
  constructor(
    readonly assetId: string,
    readonly type: string,
  ) {
    super(`agent of ${assetId} did not answer ${type} in time`);
    this.name = 'AgentTimeoutError';
  }
}

export class AgentReplyError extends Error {
  constructor(
    readonly code: AgentErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AgentReplyError';
  }
}

/** Receives metric samples from agents; the metrics module stores them in batches. */
export interface MetricsSink {
  add(assetId: string, samples: readonly MetricSample[]): void;
}

// ---- streams (decision 0028) -----------------------------------------------------------------------------

/** How a stream ended: who ended it, why, and the exit of its process when the agent's source was one. */
export interface StreamEnd {
  reason: string;
  by: 'agent' | 'hub';
  exit: StreamExit | null;
}

export interface OpenStreamOptions<K extends StreamKind> {
  kind: K;
  params: StreamParams<K>;
  /** Output the agent may send before the consumer acknowledges it (streamLimits.defaultWindowBytes). */
  windowBytes?: number;
  timeoutMs?: number;
  /**
   * Output from the agent, in order. The consumer calls `ack(chunk.length)` on the handle once it has taken
   * the bytes (sent them on, stored them): until then they count against the window.
   */
  onData(chunk: Buffer): void;
  /** Called once when the stream ends after it opened (not when the open fails: that rejects). */
  onClose(end: StreamEnd): void;
}

/** An open stream, as the hub's consumer holds it. */
export interface AgentStreamHandle<K extends StreamKind> {
  readonly id: string;
  readonly assetId: string;
  readonly kind: K;
  /** What the agent said when it opened the stream (a PTY's shell and pid…). */
  readonly info: StreamOpenedInfo<K>;
  readonly closed: boolean;
  /** Input waiting for the agent's window. */
  readonly queuedBytes: number;
  /** Queues input for the agent; false (nothing queued) when the stream is closed or the queue is full. */
  write(chunk: Buffer): boolean;
  resize(cols: number, rows: number): void;
  /** The consumer took `bytes` of output: the agent may send that many more. */
  ack(bytes: number): void;
  /** Ends the stream (the agent closes its source); onClose is called with `by: 'hub'`. */
  close(reason: string): void;
}

export interface AgentStreams {
  /**
   * Opens a stream of a kind on the asset's agent. Rejects with AgentOfflineError, AgentTimeoutError, or
   * AgentReplyError (`unsupported` when the agent has no opener for the kind, `invalid_argument`, `failed`).
   */
  openStream<K extends StreamKind>(
    assetId: string,
    options: OpenStreamOptions<K>,
  ): Promise<AgentStreamHandle<K>>;
}
