/**
 * Request/reply correlation on an agent connection (gateway.ts): the requests waiting for a result, their
 * timeouts, the late answers still paid for, and the checking of each result against its request's schema.
 */
import {
  agentLimits,
  agentProtocolVersion,
  type AgentRequestPayload,
  type AgentRequestResult,
  type AgentRequestType,
  type ResultPayload,
} from '@svc/protocol';
import type { Telemetry } from '../platform/telemetry/telemetry.js';
import type { Logger } from '../platform/logger.js';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  type AgentRequestOptions,
} from './agent-gateway.js';
import { replyAllowance } from './byte-budget.js';
import type { Connection } from './gateway-connection.js';
import { agentFrames, firstProblem, payloadChecks, resultChecks } from './gateway-frames.js';

export interface Pending {
  type: AgentRequestType;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** The largest reply this request pays for (byte-budget.ts). */
  replyBytes: number;
}

/** Requests that timed out whose late answer is still paid for by the request, per connection. */
const lateRepliesKept = 64;

export function failPending(conn: Connection): void {
  if (conn.pending.size === 0) return;
  const pending = [...conn.pending.values()];
  conn.pending.clear();
  for (const p of pending) {
    clearTimeout(p.timer);
    p.reject(new AgentOfflineError(conn.assetId));
  }
}

/** The largest reply a request waiting on this connection (or timed out on it lately) would pay for. */
export function largestReplyAllowance(conn: Connection): number {
  let largest = 0;
  for (const p of conn.pending.values()) largest = Math.max(largest, p.replyBytes);
  for (const bytes of conn.late.values()) largest = Math.max(largest, bytes);
  return largest;
}

/** What a frame's own request pays for it: a result answering a request, up to what that request allows. */
export function paidByRequest(conn: Connection, type: string, id: string): number {
  if (type !== 'result') return 0;
  return conn.pending.get(id)?.replyBytes ?? conn.late.get(id) ?? 0;
}

export function onResult(logger: Logger, conn: Connection, id: string, payload: unknown): void {
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

interface RequestLimits {
  telemetry: Pick<Telemetry, 'agentFrame'>;
  requestTimeoutMs: number;
  maxBufferedBytes: number;
  maxPending: number;
}

type SendRequest = <T extends AgentRequestType>(
  conn: Connection,
  assetId: string,
  type: T,
  payload: AgentRequestPayload<T>,
  options?: AgentRequestOptions,
) => Promise<AgentRequestResult<T>>;

/** Sends requests on ready connections, each with its own id, timeout and reply allowance. */
export function createRequestSender(limits: RequestLimits): SendRequest {
  const { telemetry, requestTimeoutMs, maxBufferedBytes, maxPending } = limits;
  let requestCounter = 0;
  return (conn, assetId, type, payload, options = {}) => {
    const payloadCheck = payloadChecks.get(type);
    if (!payloadCheck?.Check(payload)) {
      const problem = payloadCheck ? firstProblem(payloadCheck, payload) : 'unknown request type';
      return Promise.reject(new AgentReplyError('invalid_argument', `invalid ${type} request (${problem})`));
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
  };
}
