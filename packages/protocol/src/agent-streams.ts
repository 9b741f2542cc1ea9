/**
 * Streams over the agent channel (decision 0028): a flow-controlled, bidirectional byte stream between the
 * hub and an agent, carried by the same WebSocket as requests. The hub opens a stream of a `kind` (a PTY, a
 * TCP tunnel…); both ends then send `stream.data` frames, each side never having more un-acknowledged bytes
 * in flight than the window the other side granted, and either side ends it with `stream.close`.
 *
 * Hub → agent: `stream.open`, `stream.data`, `stream.ack`, `stream.resize`, `stream.close`.
 * Agent → hub: `stream.opened` (or `stream.close` with an error, refusing the open), `stream.data`,
 * `stream.ack`, `stream.close`. Each frame uses the channel envelope; its `id` is the stream id.
 */
import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { AgentError } from './agent-messages.js';

export const streamLimits = {
  /** Raw bytes one `stream.data` frame carries at most (base64 in the frame). */
  chunkBytes: 32 * 1024,
  /** The window a side grants unless the opener asks for another. */
  defaultWindowBytes: 256 * 1024,
  minWindowBytes: 4 * 1024,
  maxWindowBytes: 4 * 1024 * 1024,
  /** Streams open at once on one agent connection. */
  streamsPerAgent: 64,
  /** Frames one open stream may send per second (its own budget, beside the channel's framesPerSecond). */
  framesPerSecondPerStream: 1_000,
  reasonLength: 200,
  terminalCols: { min: 2, max: 1000 },
  terminalRows: { min: 1, max: 500 },
} as const;

const Obj = <T extends TProperties>(properties: T) =>
  Type.Object(properties, { additionalProperties: false });

export const streamIdPattern = '^s[0-9a-z]{1,16}$';
export const StreamId = Type.String({ pattern: streamIdPattern, maxLength: 17 });
const Window = Type.Integer({ minimum: streamLimits.minWindowBytes, maximum: streamLimits.maxWindowBytes });
const Reason = Type.String({ maxLength: streamLimits.reasonLength });
const Cols = Type.Integer({ minimum: streamLimits.terminalCols.min, maximum: streamLimits.terminalCols.max });
const Rows = Type.Integer({ minimum: streamLimits.terminalRows.min, maximum: streamLimits.terminalRows.max });
/** Base64 of at most chunkBytes bytes. */
const Data = Type.String({ minLength: 1, maxLength: Math.ceil(streamLimits.chunkBytes / 3) * 4 });

/**
 * The kinds of stream, each with the parameters of its open and what the agent says once it is open. A new
 * kind is one entry here and one opener in the agent's stream registry.
 */
export const streamKinds = {
  /** A pseudo-terminal running the agent user's login shell. */
  pty: {
    params: Obj({ cols: Cols, rows: Rows }),
    opened: Obj({ shell: Type.String({ maxLength: 1024 }), pid: Type.Integer({ minimum: 0 }) }),
  },
  /**
   * A TCP connection to the machine's own desktop (VNC) server. No parameters: the agent's settings name the
   * port and the host is always its loopback (decision 0030), so the hub cannot point it anywhere else.
   */
  tcp: {
    params: Obj({}),
    opened: Obj({ port: Type.Integer({ minimum: 1, maximum: 65535 }) }),
  },
} as const satisfies Record<string, { params: TSchema; opened: TSchema }>;

export type StreamKind = keyof typeof streamKinds;
export const streamKindNames = Object.keys(streamKinds) as StreamKind[];
export type StreamParams<K extends StreamKind> = Static<(typeof streamKinds)[K]['params']>;
export type StreamOpenedInfo<K extends StreamKind> = Static<(typeof streamKinds)[K]['opened']>;

/** How a stream's source ended, when it was a process (a shell's exit code or signal). */
export const StreamExit = Obj({
  code: Type.Union([Type.Integer(), Type.Null()]),
  signal: Type.Union([Type.String({ maxLength: 32 }), Type.Null()]),
});
export type StreamExit = Static<typeof StreamExit>;

export const StreamOpen = Obj({
  stream: StreamId,
  kind: Type.String({ minLength: 1, maxLength: 32 }),
  /** Bytes the agent may send before the hub acknowledges them. */
  window_bytes: Window,
  /** Checked against streamKinds[kind].params by both ends. */
  params: Type.Unknown(),
});
export type StreamOpen = Static<typeof StreamOpen>;

export const StreamOpened = Obj({
  stream: StreamId,
  /** Bytes the hub may send before the agent acknowledges them. */
  window_bytes: Window,
  /** Checked against streamKinds[kind].opened. */
  info: Type.Unknown(),
});
export type StreamOpened = Static<typeof StreamOpened>;

export const StreamData = Obj({ stream: StreamId, data: Data });
export type StreamData = Static<typeof StreamData>;

/** The receiver consumed `bytes` more of the stream: the sender may send that many more. */
export const StreamAck = Obj({
  stream: StreamId,
  bytes: Type.Integer({ minimum: 1, maximum: streamLimits.maxWindowBytes }),
});
export type StreamAck = Static<typeof StreamAck>;

export const StreamResize = Obj({ stream: StreamId, cols: Cols, rows: Rows });
export type StreamResize = Static<typeof StreamResize>;

export const StreamClose = Obj({
  stream: StreamId,
  reason: Reason,
  /** The source was a process that ended. */
  exit: Type.Optional(StreamExit),
  /** Set when the agent refuses an open (unsupported kind, bad parameters, too many streams). */
  error: Type.Optional(AgentError),
});
export type StreamClose = Static<typeof StreamClose>;

export const hubToAgentStreamFrames = {
  'stream.open': StreamOpen,
  'stream.data': StreamData,
  'stream.ack': StreamAck,
  'stream.resize': StreamResize,
  'stream.close': StreamClose,
} as const satisfies Record<string, TSchema>;
export type HubToAgentStreamFrame = keyof typeof hubToAgentStreamFrames;

export const agentToHubStreamFrames = {
  'stream.opened': StreamOpened,
  'stream.data': StreamData,
  'stream.ack': StreamAck,
  'stream.close': StreamClose,
} as const satisfies Record<string, TSchema>;
export type AgentToHubStreamFrame = keyof typeof agentToHubStreamFrames;

/** Whether a frame type belongs to the stream layer (it is routed there, not to requests). */
export function isStreamFrameType(type: string): boolean {
  return type.startsWith('stream.');
}

/** The largest `stream.data` frame text carrying `bytes` raw bytes (envelope and ids included). */
export function streamDataFrameBytes(bytes: number): number {
  return Math.ceil(Math.min(bytes, streamLimits.chunkBytes) / 3) * 4 + 256;
}
