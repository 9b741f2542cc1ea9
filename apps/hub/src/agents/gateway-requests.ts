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
  /** The timeout this request shares with those sent together with it. */
  deadline: Deadline;
  /** The largest reply this request pays for (byte-budget.ts). */
  replyBytes: number;
}

/**
 * One timer for the requests sent together (a fan-out's slice) with the same timeout: when it fires, each of
 * them still waiting times out as if it had had its own timer; it is cleared once the last one has settled.
 */
interface Deadline {
  timer: NodeJS.Timeout | null;
  /** Requests of the batch not settled yet. */
  open: number;
}

/** A request of a batch settled (answered, failed, or its connection went): the last one stops the timer. */
function settle(deadline: Deadline): void {
  deadline.open -= 1;
  if (deadline.open === 0 && deadline.timer) {
    clearTimeout(deadline.timer);
    deadline.timer = null;
  }
}

/** Requests that timed out whose late answer is still paid for by the request, per connection. */
const lateRepliesKept = 64;

export function failPending(conn: Connection): void {
  if (conn.pending.size === 0) return;
  const pending = [...conn.pending.values()];
  conn.pending.clear();
  for (const p of pending) {
    settle(p.deadline);
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
  settle(pending.deadline);
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

/** One target of a batch: its connection (null when its agent is not connected here) and its payload. */
interface BatchItem<T extends AgentRequestType> {
  conn: Connection | null;
  assetId: string;
  payload: AgentRequestPayload<T>;
}

type SendBatch = <T extends AgentRequestType>(
  type: T,
  items: readonly BatchItem<T>[],
  options?: AgentRequestOptions,
) => Promise<AgentRequestResult<T>>[];

/** A payload checked and serialised once for every target of a batch that shares it. */
type Prepared =
  | { ok: true; head: string; tail: string; bytes: number; replyBytes: number }
  | { ok: false; error: AgentReplyError };

/**
 * Sends requests on ready connections, each with its own id and reply allowance. `many` sends a batch (a
 * fan-out's slice): a payload the targets share is checked and serialised once, each frame differing only by
 * its id, and the batch shares one timeout timer (decision 0101).
 */
export function createRequestSender(limits: RequestLimits): { one: SendRequest; many: SendBatch } {
  const { telemetry, requestTimeoutMs, maxBufferedBytes, maxPending } = limits;
  let requestCounter = 0;

  function prepare(type: AgentRequestType, payload: unknown): Prepared {
    const payloadCheck = payloadChecks.get(type);
    if (!payloadCheck?.Check(payload)) {
      const problem = payloadCheck ? firstProblem(payloadCheck, payload) : 'unknown request type';
      return {
        ok: false,
        error: new AgentReplyError('invalid_argument', `invalid ${type} request (${problem})`),
      };
    }
    // The frame is {v, type, id, payload} as JSON.stringify writes it; the id (r + base 36) needs no escaping.
    const head = `{"v":${agentProtocolVersion},"type":${JSON.stringify(type)},"id":"`;
    const tail = `","payload":${JSON.stringify(payload)}}`;
    const replyBytes = replyAllowance(type, payload as AgentRequestPayload<typeof type>);
    return { ok: true, head, tail, bytes: Buffer.byteLength(head) + Buffer.byteLength(tail), replyBytes };
  }

  const many: SendBatch = (type, items, options = {}) => {
    const timeoutMs = options.timeoutMs ?? requestTimeoutMs;
    const out = new Array<Promise<AgentRequestResult<typeof type>>>(items.length);
    const waiting: { conn: Connection; id: string; pending: Pending; assetId: string }[] = [];
    const deadline: Deadline = { timer: null, open: 0 };
    let lastPayload: unknown = undefined;
    let prepared: Prepared | null = null;
    items.forEach((item, i) => {
      const { conn, assetId, payload } = item;
      if (!conn?.ready || conn.closing) {
        out[i] = Promise.reject(new AgentOfflineError(assetId));
        return;
      }
      if (prepared === null || payload !== lastPayload) {
        prepared = prepare(type, payload);
        lastPayload = payload;
      }
      const frame = prepared;
      if (!frame.ok) {
        out[i] = Promise.reject(frame.error);
        return;
      }
      if (conn.ws.bufferedAmount > maxBufferedBytes) {
        out[i] = Promise.reject(
          new AgentReplyError('failed', 'the connection to the agent is backed up; try again shortly'),
        );
        return;
      }
      if (conn.pending.size >= maxPending) {
        out[i] = Promise.reject(
          new AgentReplyError('failed', `more than ${maxPending} requests are waiting for this agent`),
        );
        return;
      }
      requestCounter += 1;
      const id = `r${requestCounter.toString(36)}`;
      const bytes = frame.bytes + id.length;
      if (bytes > agentLimits.frameBytes) {
        out[i] = Promise.reject(
          new AgentReplyError('too_large', `the ${type} request is larger than a frame may be`),
        );
        return;
      }
      const text = frame.head + id + frame.tail;
      out[i] = new Promise((resolve, reject) => {
        const pending: Pending = {
          type,
          resolve: resolve as (value: unknown) => void,
          reject,
          deadline,
          replyBytes: frame.replyBytes,
        };
        deadline.open += 1;
        conn.pending.set(id, pending);
        waiting.push({ conn, id, pending, assetId });
        telemetry.agentFrame('out', bytes);
        conn.ws.send(text, (error) => {
          if (!error || conn.pending.get(id) !== pending) return;
          conn.pending.delete(id);
          settle(deadline);
          reject(new AgentOfflineError(assetId));
        });
      });
    });
    if (deadline.open > 0) {
      deadline.timer = setTimeout(() => {
        deadline.timer = null;
        for (const { conn, id, pending, assetId } of waiting) {
          if (conn.pending.get(id) !== pending) continue;
          conn.pending.delete(id);
          // The agent may still answer: its answer stays paid for by this request.
          conn.late.set(id, pending.replyBytes);
          if (conn.late.size > lateRepliesKept) conn.late.delete(conn.late.keys().next().value ?? id);
          pending.reject(new AgentTimeoutError(assetId, type));
        }
        waiting.length = 0;
      }, timeoutMs);
      deadline.timer.unref();
    } else {
      waiting.length = 0;
    }
    return out;
  };

  return {
    many,
    one: (conn, assetId, type, payload, options) =>
      many(type, [{ conn, assetId, payload }], options)[0] as Promise<AgentRequestResult<typeof type>>,
  };
}
