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
  /** Closes the asset's connection (credential revoked, asset deleted). */
  disconnect(assetId: string, reason: string): void;
}

export class AgentOfflineError extends Error {
  constructor(readonly assetId: string) {
    super(`agent of ${assetId} is not connected`);
    this.name = 'AgentOfflineError';
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
