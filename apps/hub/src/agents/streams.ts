/**
 * The hub's end of channel streams on one agent connection (decision 0028). The gateway routes every
 * `stream.*` frame here. Each stream has two windows: the agent may have at most `windowBytes` of output
 * un-acknowledged (the consumer acknowledges what it took with `ack`, so a consumer that stops taking
 * stops the agent reading its source), and the hub sends input only while the agent's window has room,
 * queueing at most `inputQueueBytes` more; `write` answers false beyond that.
 *
 * What an agent sends is checked: a frame that does not match the catalog or overruns the window, or a
 * stream that sends more than streamLimits.framesPerSecondPerStream frames a second, is a violation (the
 * connection closes). A frame for a stream that is not open (one the hub closed a moment ago, or noise) is
 * dropped and charged to the agent's unsolicited byte budget by the gateway.
 */
import { Compile } from 'typebox/compile';
import {
  agentProtocolVersion,
  agentToHubStreamFrames,
  streamDataFrameBytes,
  streamKinds,
  streamLimits,
  type StreamClose,
  type StreamKind,
  type StreamOpenedInfo,
} from '@svc/protocol';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  type AgentStreamHandle,
  type OpenStreamOptions,
  type StreamEnd,
} from './agent-gateway.js';
import { takeBytes } from '@svc/protocol/node';

type Validator = ReturnType<typeof Compile>;
const frameChecks = new Map<string, Validator>(
  Object.entries(agentToHubStreamFrames).map(([type, schema]) => [type, Compile(schema)]),
);
const openedChecks = new Map<string, Validator>(
  Object.entries(streamKinds).map(([kind, k]) => [kind, Compile(k.opened)]),
);
const paramChecks = new Map<string, Validator>(
  Object.entries(streamKinds).map(([kind, k]) => [kind, Compile(k.params)]),
);

function problem(validator: Validator, value: unknown): string {
  const first = validator.Errors(value)[0];
  return first ? `${first.instancePath || '/'}: ${first.message}`.slice(0, 150) : 'invalid';
}

const streamDefaults = {
  openTimeoutMs: 15_000,
  /** Input queued beyond the agent's window before write() refuses. */
  inputQueueBytes: 64 * 1024,
} as const;

interface HubStream {
  id: string;
  kind: StreamKind;
  options: OpenStreamOptions<StreamKind>;
  state: 'opening' | 'open' | 'closed';
  /** Output bytes the agent may still send (our window minus what it sent and was not acknowledged). */
  agentCredit: number;
  /** Output the consumer took but that was not acknowledged yet (sent in quarters of the window). */
  toAck: number;
  /** Input bytes the agent still accepts. */
  inputCredit: number;
  inputWindow: number;
  queue: Buffer[];
  queuedBytes: number;
  windowStart: number;
  frames: number;
  resolve?: (handle: AgentStreamHandle<StreamKind>) => void;
  reject?: (error: Error) => void;
  timer?: NodeJS.Timeout;
}

export interface StreamTableIo {
  assetId: string;
  send(text: string): void;
  violation(reason: string): void;
  now(): number;
}

export interface StreamTable {
  readonly size: number;
  open<K extends StreamKind>(id: string, options: OpenStreamOptions<K>): Promise<AgentStreamHandle<K>>;
  /** Handles a parsed `stream.*` frame; false when no open stream paid for it (unknown stream, invalid). */
  receive(type: string, payload: unknown): boolean;
  /** The largest `stream.data` frame an open stream may send now, for the gateway's check before parsing. */
  frameAllowance(): number;
  /** The connection ended: every stream ends, opens fail. */
  closeAll(reason: string): void;
}

export function createStreamTable(io: StreamTableIo): StreamTable {
  const streams = new Map<string, HubStream>();

  function sendFrame(type: string, id: string, payload: unknown): void {
    io.send(JSON.stringify({ v: agentProtocolVersion, type, id, payload }));
  }

  function end(stream: HubStream, result: StreamEnd): void {
    if (stream.state === 'closed') return;
    const wasOpening = stream.state === 'opening';
    stream.state = 'closed';
    streams.delete(stream.id);
    clearTimeout(stream.timer);
    stream.queue = [];
    stream.queuedBytes = 0;
    if (wasOpening) return;
    try {
      stream.options.onClose(result);
    } catch {
      // A consumer's close handler failing must not break the channel.
    }
  }

  function pump(stream: HubStream): void {
    while (stream.state === 'open' && stream.queuedBytes > 0 && stream.inputCredit > 0) {
      const size = Math.min(stream.queuedBytes, stream.inputCredit, streamLimits.chunkBytes);
      const data = takeBytes(stream.queue, size);
      stream.queuedBytes -= size;
      stream.inputCredit -= size;
      sendFrame('stream.data', stream.id, {
        stream: stream.id,
        data: data.toString('base64'),
      });
    }
  }

  function handle<K extends StreamKind>(stream: HubStream, info: StreamOpenedInfo<K>): AgentStreamHandle<K> {
    return {
      id: stream.id,
      assetId: io.assetId,
      kind: stream.kind as K,
      info,
      get closed() {
        return stream.state === 'closed';
      },
      get queuedBytes() {
        return stream.queuedBytes;
      },
      write(chunk) {
        if (stream.state !== 'open') return false;
        if (chunk.length === 0) return true;
        if (stream.queuedBytes + chunk.length > stream.inputCredit + streamDefaults.inputQueueBytes)
          return false;
        stream.queue.push(chunk);
        stream.queuedBytes += chunk.length;
        pump(stream);
        return true;
      },
      resize(cols, rows) {
        if (stream.state !== 'open') return;
        sendFrame('stream.resize', stream.id, { stream: stream.id, cols, rows });
      },
      ack(bytes) {
        if (stream.state !== 'open' || bytes <= 0) return;
        stream.toAck += bytes;
        const window = stream.options.windowBytes ?? streamLimits.defaultWindowBytes;
        if (stream.toAck >= window / 4) {
          const grant = Math.min(stream.toAck, window);
          stream.toAck = 0;
          stream.agentCredit += grant;
          sendFrame('stream.ack', stream.id, { stream: stream.id, bytes: grant });
        }
      },
      close(reason) {
        if (stream.state === 'closed') return;
        sendFrame('stream.close', stream.id, {
          stream: stream.id,
          reason: reason.slice(0, streamLimits.reasonLength),
        });
        end(stream, { reason, by: 'hub', exit: null });
      },
    };
  }

  function countFrame(stream: HubStream): boolean {
    const now = io.now();
    if (now - stream.windowStart >= 1000) {
      stream.windowStart = now;
      stream.frames = 0;
    }
    stream.frames += 1;
    if (stream.frames > streamLimits.framesPerSecondPerStream) {
      io.violation(
        `stream ${stream.id} sent more than ${streamLimits.framesPerSecondPerStream} frames per second`,
      );
      return false;
    }
    return true;
  }

  return {
    get size() {
      return streams.size;
    },

    open<K extends StreamKind>(id: string, options: OpenStreamOptions<K>) {
      const paramCheck = paramChecks.get(options.kind);
      if (!paramCheck?.Check(options.params)) {
        const why = paramCheck ? problem(paramCheck, options.params) : 'unknown kind';
        return Promise.reject(
          new AgentReplyError('invalid_argument', `invalid ${options.kind} stream (${why})`),
        );
      }
      if (streams.size >= streamLimits.streamsPerAgent) {
        return Promise.reject(
          new AgentReplyError(
            'failed',
            `more than ${streamLimits.streamsPerAgent} streams are open on this agent`,
          ),
        );
      }
      const windowBytes = options.windowBytes ?? streamLimits.defaultWindowBytes;
      return new Promise<AgentStreamHandle<K>>((resolve, reject) => {
        const stream: HubStream = {
          id,
          kind: options.kind,
          options: options,
          state: 'opening',
          agentCredit: windowBytes,
          toAck: 0,
          inputCredit: 0,
          inputWindow: 0,
          queue: [],
          queuedBytes: 0,
          windowStart: io.now(),
          frames: 0,
          resolve: resolve as unknown as (handle: AgentStreamHandle<StreamKind>) => void,
          reject,
        };
        stream.timer = setTimeout(() => {
          if (stream.state !== 'opening') return;
          sendFrame('stream.close', id, { stream: id, reason: 'open timed out' });
          end(stream, { reason: 'open timed out', by: 'hub', exit: null });
          reject(new AgentTimeoutError(io.assetId, `stream.open ${options.kind}`));
        }, options.timeoutMs ?? streamDefaults.openTimeoutMs);
        stream.timer.unref();
        streams.set(id, stream);
        sendFrame('stream.open', id, {
          stream: id,
          kind: options.kind,
          window_bytes: windowBytes,
          params: options.params,
        });
      });
    },

    receive(type, payload) {
      const check = frameChecks.get(type);
      if (!check) {
        io.violation(`unknown frame type ${JSON.stringify(type.slice(0, 64))}`);
        return false;
      }
      const id = (payload as { stream?: unknown } | null)?.stream;
      const stream = typeof id === 'string' ? streams.get(id) : undefined;
      if (!stream) return false;
      if (!countFrame(stream)) return true;
      if (!check.Check(payload)) {
        io.violation(`invalid ${type}: ${problem(check, payload)}`);
        return true;
      }
      switch (type) {
        case 'stream.opened': {
          const opened = payload as { window_bytes: number; info: unknown };
          if (stream.state !== 'opening') {
            io.violation(`stream ${stream.id} opened twice`);
            return true;
          }
          const infoCheck = openedChecks.get(stream.kind);
          if (!infoCheck?.Check(opened.info)) {
            sendFrame('stream.close', stream.id, { stream: stream.id, reason: 'malformed open answer' });
            end(stream, { reason: 'malformed open answer', by: 'hub', exit: null });
            stream.reject?.(
              new AgentReplyError('failed', `the agent answered the ${stream.kind} open with malformed info`),
            );
            return true;
          }
          clearTimeout(stream.timer);
          stream.state = 'open';
          stream.inputCredit = opened.window_bytes;
          stream.inputWindow = opened.window_bytes;
          stream.resolve?.(handle(stream, opened.info as StreamOpenedInfo<StreamKind>));
          return true;
        }
        case 'stream.data': {
          if (stream.state !== 'open') {
            io.violation(`data on stream ${stream.id} before it opened`);
            return true;
          }
          const data = Buffer.from((payload as { data: string }).data, 'base64');
          if (data.length > stream.agentCredit) {
            io.violation(
              `stream ${stream.id} sent ${data.length} bytes with ${stream.agentCredit} of window left`,
            );
            return true;
          }
          stream.agentCredit -= data.length;
          try {
            stream.options.onData(data);
          } catch {
            // The consumer's failure is its own; the stream goes on.
          }
          return true;
        }
        case 'stream.ack': {
          const { bytes } = payload as { bytes: number };
          if (stream.state !== 'open' || stream.inputCredit + bytes > stream.inputWindow) {
            io.violation(`stream ${stream.id} acknowledged more than was sent`);
            return true;
          }
          stream.inputCredit += bytes;
          pump(stream);
          return true;
        }
        case 'stream.close': {
          const close = payload as StreamClose;
          if (stream.state === 'opening') {
            streams.delete(stream.id);
            clearTimeout(stream.timer);
            stream.state = 'closed';
            stream.reject?.(
              new AgentReplyError(close.error?.code ?? 'failed', close.error?.message ?? close.reason),
            );
            return true;
          }
          end(stream, { reason: close.reason, by: 'agent', exit: close.exit ?? null });
          return true;
        }
        default:
          return false;
      }
    },

    frameAllowance() {
      let largest = 0;
      for (const stream of streams.values()) {
        if (stream.state === 'open') largest = Math.max(largest, streamDataFrameBytes(stream.agentCredit));
      }
      // stream.opened, ack and close frames are small.
      return streams.size > 0 ? Math.max(largest, 4096) : 0;
    },

    closeAll(reason) {
      for (const stream of [...streams.values()]) {
        if (stream.state === 'opening') {
          streams.delete(stream.id);
          clearTimeout(stream.timer);
          stream.state = 'closed';
          stream.reject?.(new AgentOfflineError(io.assetId));
          continue;
        }
        end(stream, { reason, by: 'hub', exit: null });
      }
    },
  };
}
