/**
 * What the gateway (gateway.ts) does with each frame an agent sends: the per-second frame limits, the byte
 * budget (byte-budget.ts) checked before parsing, validation, and the dispatch to hello, heartbeat, metrics,
 * results and channel streams. Anything wrong is a violation that closes the connection.
 */
import { performance } from 'node:perf_hooks';
import type { RawData } from 'ws';
import {
  agentLimits,
  agentProtocolVersion,
  isStreamFrameType,
  streamLimits,
  type Frame,
  type MetricsFrame,
} from '@svc/protocol';
import type { Telemetry } from '../platform/telemetry/telemetry.js';
import { truncateForLog, type Logger } from '../platform/logger.js';
import type { RefusalLog } from '../platform/refusal-log.js';
import type { MetricsSink } from './agent-gateway.js';
import type { ByteBudgets } from './byte-budget.js';
import type { Connection, ConnectionLifecycle } from './gateway-connection.js';
import { agentFrames, firstProblem, frameCheck, sizeOf, textOf } from './gateway-frames.js';
import { largestReplyAllowance, onResult, paidByRequest } from './gateway-requests.js';

interface InboundDeps {
  logger: Logger;
  metrics: MetricsSink;
  refusals: RefusalLog;
  telemetry: Pick<Telemetry, 'agentFrame'>;
  budgets: ByteBudgets;
  lifecycle: ConnectionLifecycle;
}

type MessageHandler = (conn: Connection, data: RawData, isBinary: boolean) => void;

/** The handler of an agent connection's frames. */
export function createFrameReader(deps: InboundDeps): MessageHandler {
  const { logger, metrics, refusals, telemetry, budgets } = deps;
  const { onHello, touch, violation } = deps.lifecycle;

  /** Counts a frame against the base limit (streams' allowances are not for it); false once closed for it. */
  function spendBaseFrame(conn: Connection): boolean {
    conn.baseFrames += 1;
    if (conn.baseFrames <= agentLimits.framesPerSecond) return true;
    violation(conn, `more than ${agentLimits.framesPerSecond} frames per second outside streams`);
    return false;
  }

  /** Counts a frame against the per-second limit; false once closed for it. */
  function withinFrameLimit(conn: Connection, now: number): boolean {
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
      return false;
    }
    return true;
  }

  /** The frame parsed and checked against the frame schema, or null once closed for it. */
  function parse(conn: Connection, data: RawData): Frame | null {
    let frame: unknown;
    try {
      frame = JSON.parse(textOf(data));
    } catch {
      violation(conn, 'a frame is not valid JSON');
      return null;
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
      return null;
    }
    if (!frameCheck.Check(frame)) {
      violation(conn, `invalid frame: ${firstProblem(frameCheck, frame)}`);
      return null;
    }
    return frame as Frame;
  }

  function onMessage(conn: Connection, data: RawData, isBinary: boolean): void {
    telemetry.agentFrame('in', sizeOf(data));
    if (conn.closing) return;
    conn.missedPongs = 0;
    const now = performance.now();
    if (!withinFrameLimit(conn, now)) return;
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
    const frame = parse(conn, data);
    if (!frame) return;
    const { type, id, payload } = frame;
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
    dispatch(conn, type, id, payload);
  }

  function dispatch(conn: Connection, type: string, id: string, payload: unknown): void {
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
        onResult(logger, conn, id, payload);
        return;
      default:
        violation(conn, `unknown frame type ${JSON.stringify(type.slice(0, 64))}`);
    }
  }

  return onMessage;
}
