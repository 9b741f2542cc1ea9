/**
 * The agent's end of channel streams (decision 0028). The hub opens a stream of a kind; an opener from the
 * registry starts its source (a PTY, a TCP connection…) and the host carries bytes both ways with credit
 * flow control: output after a quiet spell is sent at once, sustained output is coalesced into chunks of at
 * most streamLimits.chunkBytes (decision 0068), and nothing is sent beyond the hub's window; out of credit,
 * the source is paused (the PTY is not read), so a flooding source grows no buffer here. Input from the hub is checked against the window this side granted and acknowledged
 * once the source took it.
 *
 * One host per connection: when the channel closes, every stream's source is closed.
 */
import { Compile } from 'typebox/compile';
import {
  agentProtocolVersion,
  agentToHubStreamFrames,
  hubToAgentStreamFrames,
  streamKinds,
  streamLimits,
  type AgentErrorCode,
  type AgentToHubStreamFrame,
  type StreamExit,
  type StreamKind,
  type StreamOpenedInfo,
  type StreamParams,
} from '@svc/protocol';
import type { Static } from 'typebox';
import { AgentError } from '../handlers/agent-error.js';
import type { Logger } from '../logger.js';
import { takeBytes } from '@svc/protocol/node';
import { compiledOnDemand } from './frames.js';

/** What an opener hands back: the running source. */
export interface OpenedSource {
  /** Input from the hub; `done` is called once the source took it (then it is acknowledged). */
  write(chunk: Buffer, done: () => void): void;
  /** Terminal size (PTY); other kinds ignore it. */
  resize?(cols: number, rows: number): void;
  /** Stop reading the source until resume(): the hub's window is full. */
  pause(): void;
  resume(): void;
  /** Ends the source (kills the shell, closes the socket); end() is not called after this. */
  close(): void;
}

/** How a source reports its output and its end to the host. */
export interface SourceSink {
  output(chunk: Buffer): void;
  end(reason: string, exit?: StreamExit): void;
}

interface StreamOpener<K extends StreamKind> {
  open(
    params: StreamParams<K>,
    sink: SourceSink,
  ): Promise<{ info: StreamOpenedInfo<K>; source: OpenedSource }>;
}

export type StreamOpeners = { [K in StreamKind]?: StreamOpener<K> };

type Validator = ReturnType<typeof Compile>;
// Compiled on first use, as the request validators are (frames.ts): an agent that never opens a terminal or
// a tunnel holds none of them.
const incoming = compiledOnDemand<Validator>(
  (type) => Object.hasOwn(hubToAgentStreamFrames, type),
  (type) => Compile(hubToAgentStreamFrames[type as keyof typeof hubToAgentStreamFrames]),
);
const outgoing = compiledOnDemand<Validator>(
  (type) => Object.hasOwn(agentToHubStreamFrames, type),
  (type) => Compile(agentToHubStreamFrames[type as keyof typeof agentToHubStreamFrames]),
);
const paramChecks = compiledOnDemand<Validator>(
  (kind) => Object.hasOwn(streamKinds, kind),
  (kind) => Compile(streamKinds[kind as StreamKind].params),
);
const openedChecks = compiledOnDemand<Validator>(
  (kind) => Object.hasOwn(streamKinds, kind),
  (kind) => Compile(streamKinds[kind as StreamKind].opened),
);

function problem(validator: Validator, value: unknown): string {
  const first = validator.Errors(value)[0];
  return first ? `${first.instancePath || '(payload)'} ${first.message}`.slice(0, 150) : 'invalid';
}

/**
 * Output that follows other output within this long is held and sent together when it ends (coalescing):
 * the first output after a quiet spell (an echo, a prompt) goes at once, and sustained output goes as full
 * chunks and one frame per `coalesceMs`: at most two frames per hold are not full chunks, so well under the
 * hub's streamLimits.framesPerSecondPerStream besides the full chunks the bandwidth makes.
 */
export const coalesceMs = 4;

interface HostedStream {
  id: string;
  source: OpenedSource | null;
  /** Bytes the hub still accepts from us. */
  credit: number;
  /** Output waiting for credit or for the coalescing timer. */
  out: Buffer[];
  outBytes: number;
  paused: boolean;
  /** Set while output came within the last coalesceMs: more output waits for it (then it is sent). */
  holdTimer: NodeJS.Timeout | undefined;
  /** Bytes of input the hub may still send (our window minus what it sent and we did not ack). */
  inputWindow: number;
  inputUnacked: number;
  inputTaken: number;
  /** The source ended; the close goes out once the output is sent. */
  ending: { reason: string; exit?: StreamExit } | null;
  closed: boolean;
}

export interface StreamHostOptions {
  openers: StreamOpeners;
  send: (frame: string) => void;
  logger: Logger;
  /** The window this agent grants the hub for input. */
  inputWindowBytes?: number;
}

export class StreamHost {
  private readonly streams = new Map<string, HostedStream>();
  private readonly inputWindow: number;

  constructor(private readonly options: StreamHostOptions) {
    this.inputWindow = options.inputWindowBytes ?? 64 * 1024;
  }

  get size(): number {
    return this.streams.size;
  }

  /** Handles one `stream.*` frame from the hub. */
  handle(type: string, payload: unknown): void {
    const validator = incoming.get(type);
    if (!validator) {
      this.options.logger.warn('unknown stream frame from the hub', { type: type.slice(0, 64) });
      return;
    }
    if (!validator.Check(payload)) {
      this.options.logger.warn('invalid stream frame from the hub', {
        type,
        problem: problem(validator, payload),
      });
      const stream = (payload as { stream?: unknown } | null)?.stream;
      const hosted = typeof stream === 'string' ? this.streams.get(stream) : undefined;
      if (hosted) this.finish(hosted, `invalid ${type} frame`, true);
      return;
    }
    switch (type) {
      case 'stream.open':
        this.open(payload as Static<(typeof hubToAgentStreamFrames)['stream.open']>);
        return;
      case 'stream.data':
        this.input(payload as Static<(typeof hubToAgentStreamFrames)['stream.data']>);
        return;
      case 'stream.ack': {
        const ack = payload as Static<(typeof hubToAgentStreamFrames)['stream.ack']>;
        const stream = this.streams.get(ack.stream);
        if (!stream) return;
        stream.credit += ack.bytes;
        this.send(stream);
        return;
      }
      case 'stream.resize': {
        const resize = payload as Static<(typeof hubToAgentStreamFrames)['stream.resize']>;
        this.streams.get(resize.stream)?.source?.resize?.(resize.cols, resize.rows);
        return;
      }
      case 'stream.close': {
        const close = payload as Static<(typeof hubToAgentStreamFrames)['stream.close']>;
        const stream = this.streams.get(close.stream);
        if (stream) this.finish(stream, close.reason, false);
        return;
      }
      default:
        return;
    }
  }

  /** The channel closed: every source ends. */
  closeAll(): void {
    for (const stream of [...this.streams.values()]) this.finish(stream, 'channel closed', false);
  }

  private emit<T extends AgentToHubStreamFrame>(
    type: T,
    payload: Static<(typeof agentToHubStreamFrames)[T]>,
    id: string,
  ): void {
    const validator = outgoing.get(type);
    if (validator && !validator.Check(payload)) {
      this.options.logger.error('outgoing stream frame is invalid', {
        type,
        problem: problem(validator, payload),
      });
      return;
    }
    this.options.send(JSON.stringify({ v: agentProtocolVersion, type, id, payload }));
  }

  private refuse(id: string, code: AgentErrorCode, message: string): void {
    this.emit('stream.close', { stream: id, reason: message.slice(0, 200), error: { code, message } }, id);
  }

  private open(frame: Static<(typeof hubToAgentStreamFrames)['stream.open']>): void {
    const { stream: id, kind } = frame;
    if (this.streams.has(id)) {
      this.options.logger.warn('stream id reused; ignored', { stream: id });
      return;
    }
    const opener = (this.options.openers as Record<string, StreamOpener<StreamKind> | undefined>)[kind];
    if (!opener) {
      this.refuse(id, 'unsupported', `this agent does not open ${kind.slice(0, 32)} streams`);
      return;
    }
    const check = paramChecks.get(kind);
    if (!check?.Check(frame.params)) {
      this.refuse(
        id,
        'invalid_argument',
        `invalid ${kind} parameters: ${check ? problem(check, frame.params) : kind}`,
      );
      return;
    }
    if (this.streams.size >= streamLimits.streamsPerAgent) {
      this.refuse(id, 'failed', `more than ${streamLimits.streamsPerAgent} streams are open on this agent`);
      return;
    }
    const stream: HostedStream = {
      id,
      source: null,
      credit: frame.window_bytes,
      out: [],
      outBytes: 0,
      paused: false,
      holdTimer: undefined,
      inputWindow: this.inputWindow,
      inputUnacked: 0,
      inputTaken: 0,
      ending: null,
      closed: false,
    };
    this.streams.set(id, stream);
    const sink: SourceSink = {
      output: (chunk) => {
        this.output(stream, chunk);
      },
      end: (reason, exit) => {
        if (stream.closed || stream.ending) return;
        stream.ending = exit ? { reason, exit } : { reason };
        this.flush(stream);
      },
    };
    opener.open(frame.params as StreamParams<StreamKind>, sink).then(
      ({ info, source }) => {
        if (stream.closed) {
          source.close();
          return;
        }
        stream.source = source;
        const openedCheck = openedChecks.get(kind);
        if (openedCheck && !openedCheck.Check(info)) {
          this.options.logger.error('stream opener produced invalid info', { kind });
        }
        this.emit('stream.opened', { stream: id, window_bytes: stream.inputWindow, info }, id);
        if (stream.paused) source.pause();
        this.flush(stream);
      },
      (error: unknown) => {
        this.streams.delete(id);
        stream.closed = true;
        const code = error instanceof AgentError ? error.code : 'failed';
        this.refuse(id, code, `cannot open ${kind}: ${(error as Error).message}`.slice(0, 2000));
      },
    );
  }

  private output(stream: HostedStream, chunk: Buffer): void {
    if (stream.closed || chunk.length === 0) return;
    stream.out.push(chunk);
    stream.outBytes += chunk.length;
    this.send(stream);
    this.updatePause(stream);
  }

  /**
   * After a quiet spell (nothing held) everything goes at once, so a keystroke's echo waits for no timer, and
   * a hold starts. During a hold only full chunks go; the rest waits for the hold's end. So each hold sends
   * at most two frames that are not full chunks, whatever the source's reads and the hub's acks look like.
   */
  private send(stream: HostedStream): void {
    if (stream.holdTimer) {
      this.flush(stream, true);
      return;
    }
    const before = stream.outBytes;
    this.flush(stream);
    if (stream.outBytes < before) this.hold(stream);
  }

  /** Holds further output for coalesceMs; what came meanwhile is sent when it ends, and the hold goes on. */
  private hold(stream: HostedStream): void {
    if (stream.holdTimer || stream.closed) return;
    stream.holdTimer = setTimeout(() => {
      stream.holdTimer = undefined;
      const held = stream.outBytes;
      this.flush(stream);
      // Still busy: hold on. Nothing went (no credit, not open yet): the ack or the open sends it.
      if (stream.outBytes < held) this.hold(stream);
    }, coalesceMs);
  }

  /** Sends what credit allows, in chunks (`fullOnly`: only whole ones); then the close, once all went out. */
  private flush(stream: HostedStream, fullOnly = false): void {
    if (stream.closed || !stream.source) return;
    while (stream.outBytes > 0 && stream.credit > 0) {
      const size = Math.min(stream.outBytes, stream.credit, streamLimits.chunkBytes);
      // The last short piece waits for the hold's end; a frame cut short by the credit goes (once per ack).
      if (fullOnly && size === stream.outBytes && size < streamLimits.chunkBytes) break;
      const data = takeBytes(stream.out, size);
      stream.outBytes -= size;
      stream.credit -= size;
      this.emit('stream.data', { stream: stream.id, data: data.toString('base64') }, stream.id);
    }
    this.updatePause(stream);
    if (stream.ending && stream.outBytes === 0) {
      const { reason, exit } = stream.ending;
      this.streams.delete(stream.id);
      stream.closed = true;
      clearTimeout(stream.holdTimer);
      this.emit(
        'stream.close',
        { stream: stream.id, reason: reason.slice(0, 200), ...(exit ? { exit } : {}) },
        stream.id,
      );
    }
  }

  /** Reading stops while a chunk is waiting without credit, and starts again once it went out. */
  private updatePause(stream: HostedStream): void {
    const shouldPause =
      stream.outBytes >= streamLimits.chunkBytes || (stream.outBytes > 0 && stream.credit <= 0);
    if (shouldPause === stream.paused) return;
    stream.paused = shouldPause;
    if (!stream.source || stream.ending) return;
    if (shouldPause) stream.source.pause();
    else stream.source.resume();
  }

  private input(frame: Static<(typeof hubToAgentStreamFrames)['stream.data']>): void {
    const stream = this.streams.get(frame.stream);
    if (!stream?.source || stream.ending) return;
    const chunk = Buffer.from(frame.data, 'base64');
    if (stream.inputUnacked + chunk.length > stream.inputWindow) {
      this.finish(stream, 'the hub sent more than the window allows', true);
      return;
    }
    stream.inputUnacked += chunk.length;
    stream.source.write(chunk, () => {
      if (stream.closed) return;
      stream.inputUnacked -= chunk.length;
      stream.inputTaken += chunk.length;
      // Acknowledge in quarters of the window: few frames, and the hub never waits on a small remainder.
      if (stream.inputTaken >= stream.inputWindow / 4) {
        this.emit('stream.ack', { stream: stream.id, bytes: stream.inputTaken }, stream.id);
        stream.inputTaken = 0;
      }
    });
  }

  /** Ends a stream now: the source is closed; `tell` sends the hub a close. */
  private finish(stream: HostedStream, reason: string, tell: boolean): void {
    if (stream.closed) return;
    stream.closed = true;
    clearTimeout(stream.holdTimer);
    this.streams.delete(stream.id);
    stream.out = [];
    stream.outBytes = 0;
    try {
      stream.source?.close();
    } catch (error) {
      this.options.logger.warn('closing a stream source failed', { error: (error as Error).message });
    }
    if (tell) this.emit('stream.close', { stream: stream.id, reason: reason.slice(0, 200) }, stream.id);
  }
}
