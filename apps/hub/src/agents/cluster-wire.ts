/**
 * What hub processes say to each other about agents (decision 0039): the subjects and the schemas of every
 * message of the cluster gateway. A peer process is still input: each message is checked here before it is
 * used, and agent requests, results and stream parameters are checked against the protocol's catalogs again.
 */
import { Compile } from 'typebox/compile';
import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import {
  agentErrorCodes,
  agentRequests,
  agentRequestTypes,
  Hello,
  StreamExit,
  streamKinds,
  streamLimits,
} from '@svc/protocol';
import { defineOwnedKind, ownedCallError, ownedSubject } from '../platform/cluster/owned-state.js';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  ClusterUnavailableCallError,
} from './agent-gateway.js';

const Obj = <T extends TProperties>(properties: T) =>
  Type.Object(properties, { additionalProperties: false });

/** Limits of what a peer may send; beyond them a message is dropped (or the request refused). */
export const clusterLimits = {
  /** Sessions one view message carries at most (larger batches are split by the sender). */
  viewBatch: 2_000,
  /** JSON bytes of sessions a sender puts in one view message (well under a NATS message's 1 MiB). */
  viewBatchBytes: 256 * 1024,
  idLength: 64,
  reasonLength: 200,
  /** Requests one batch carries at most: a fan-out's slice (decision 0057), one batch per holder. */
  batchItems: 250,
  /**
   * JSON bytes of results one batch reply carries at most (under the bus's 64 MiB message bound): a result past
   * them is answered as failed rather than making the whole reply too large to send.
   */
  batchReplyBytes: 32 * 1024 * 1024,
  /** The longest agent request a peer may ask for (exec's own maximum is an hour). */
  maxRequestTimeoutMs: 3_600_000 + 60_000,
} as const;

export const clusterSubjects = {
  /** Holders publish connects and disconnects of their agents here, batched. */
  view: 'svc.agents.view',
  /** Any process asks every other to close an agent's channel (credential revoked, asset deleted). */
  disconnect: 'svc.agents.disconnect',
  /** A stream opened by the node that holds the agent (the stream relay's open on the agent kind). */
  streamOpen: (node: string) => ownedSubject(node, 'agent', 'open'),
  /** Holder → opener: output and the end. */
  streamOut: (stream: string) => `svc.stream.${stream}.out`,
  /** Opener → holder: input, resize, ack, close. */
  streamIn: (stream: string) => `svc.stream.${stream}.in`,
} as const;

const Id = Type.String({ minLength: 1, maxLength: clusterLimits.idLength, pattern: '^[A-Za-z0-9_-]+$' });
const Reason = Type.String({ maxLength: clusterLimits.reasonLength });
const Iso = Type.String({ maxLength: 40 });
const Base64 = Type.String({ minLength: 1, maxLength: Math.ceil(streamLimits.chunkBytes / 3) * 4 });

export const SessionWire = Obj({
  asset_id: Id,
  connected_at: Iso,
  last_seen_at: Iso,
  remote_address: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
  hello: Hello,
});
export type SessionWire = Static<typeof SessionWire>;

export const ViewMessage = Obj({
  up: Type.Array(SessionWire, { maxItems: clusterLimits.viewBatch }),
  down: Type.Array(Id, { maxItems: clusterLimits.viewBatch }),
});
export type ViewMessage = Static<typeof ViewMessage>;

/** A snapshot: the holder's sessions (the bus joins answers larger than one message). */
const SnapshotReply = Obj({ sessions: Type.Array(SessionWire) });

const DisconnectMessage = Obj({ asset_id: Id, reason: Reason });

export const RequestMessage = Obj({
  asset_id: Id,
  type: Type.String({ maxLength: 64 }),
  payload: Type.Unknown(),
  timeout_ms: Type.Integer({ minimum: 1, maximum: clusterLimits.maxRequestTimeoutMs }),
});
export type RequestMessage = Static<typeof RequestMessage>;

const maxReplyMessageChars = 2_000;
const ErrorCode = Type.Enum<[...typeof agentErrorCodes]>([...agentErrorCodes]);

/** A call's failure, as the kind of error a local call would have thrown (requests and stream opens). */
const ErrorReply = Type.Union([
  Obj({ ok: Type.Literal(false), error: Type.Literal('offline') }),
  Obj({ ok: Type.Literal(false), error: Type.Literal('timeout') }),
  Obj({
    ok: Type.Literal(false),
    error: Type.Literal('reply'),
    code: ErrorCode,
    message: Type.String({ maxLength: maxReplyMessageChars }),
  }),
]);
type ErrorReply = Static<typeof ErrorReply>;

/**
 * What the holder answers: the result, or the error; `not_held` when the agent was not connected to it when the
 * request arrived, so nothing reached the agent (the caller may retry on the agent's new holder).
 */
export const RequestReply = Type.Union([
  Obj({ ok: Type.Literal(true), data: Type.Unknown() }),
  ErrorReply,
  Obj({ ok: Type.Literal(false), error: Type.Literal('not_held') }),
]);
export type RequestReply = Static<typeof RequestReply>;

/** Up to `batchItems` requests of one type for agents the owner holds, each with its own asset and payload. */
export const BatchMessage = Obj({
  type: Type.String({ maxLength: 64 }),
  timeout_ms: Type.Integer({ minimum: 1, maximum: clusterLimits.maxRequestTimeoutMs }),
  items: Type.Array(Obj({ asset_id: Id, payload: Type.Unknown() }), {
    minItems: 1,
    maxItems: clusterLimits.batchItems,
  }),
});
export type BatchMessage = Static<typeof BatchMessage>;

/** One reply per item, in the items' order (the caller checks the count and each result). */
export const BatchReply = Obj({
  results: Type.Array(RequestReply, { maxItems: clusterLimits.batchItems }),
});
export type BatchReply = Static<typeof BatchReply>;

export const StreamOpenMessage = Obj({
  stream: Id,
  asset_id: Id,
  kind: Type.String({ maxLength: 32 }),
  params: Type.Unknown(),
  window_bytes: Type.Integer({ minimum: streamLimits.minWindowBytes, maximum: streamLimits.maxWindowBytes }),
  timeout_ms: Type.Integer({ minimum: 1, maximum: 120_000 }),
});
export type StreamOpenMessage = Static<typeof StreamOpenMessage>;

/** As a request's reply: `not_held` when the agent was not connected to the holder, so nothing opened. */
export const StreamOpenReply = Type.Union([
  Obj({ ok: Type.Literal(true), info: Type.Unknown() }),
  ErrorReply,
  Obj({ ok: Type.Literal(false), error: Type.Literal('not_held') }),
]);
export type StreamOpenReply = Static<typeof StreamOpenReply>;

const StreamEndWire = Obj({
  reason: Reason,
  by: Type.Union([Type.Literal('agent'), Type.Literal('hub')]),
  exit: Type.Union([StreamExit, Type.Null()]),
});

/** Holder → opener, in order: output (`seq` counts messages, so a lost one ends the stream) and the end. */
const StreamOutMessage = Type.Union([
  Obj({ t: Type.Literal('data'), seq: Type.Integer({ minimum: 0 }), data: Base64 }),
  Obj({ t: Type.Literal('close'), end: StreamEndWire }),
]);

/** Opener → holder. `queued` in `written` is the holder's input queue after the write. */
export const StreamInMessage = Type.Union([
  Obj({ t: Type.Literal('write'), seq: Type.Integer({ minimum: 0 }), data: Base64 }),
  Obj({ t: Type.Literal('ack'), bytes: Type.Integer({ minimum: 1, maximum: streamLimits.maxWindowBytes }) }),
  Obj({
    t: Type.Literal('resize'),
    cols: Type.Integer({ minimum: streamLimits.terminalCols.min, maximum: streamLimits.terminalCols.max }),
    rows: Type.Integer({ minimum: streamLimits.terminalRows.min, maximum: streamLimits.terminalRows.max }),
  }),
  Obj({ t: Type.Literal('close'), reason: Reason }),
]);
export type StreamInMessage = Static<typeof StreamInMessage>;

/** Holder → opener on the out subject too: how much input the holder took and still queues. */
const StreamWrittenMessage = Obj({
  t: Type.Literal('written'),
  bytes: Type.Integer({ minimum: 0 }),
  queued: Type.Integer({ minimum: 0 }),
});

export const StreamOutAny = Type.Union([StreamOutMessage, StreamWrittenMessage]);
export type StreamOutAny = Static<typeof StreamOutAny>;

/**
 * Agents as a kind of state owned by one process (decision 0058): the owner of an agent is the process
 * holding its connection (the cluster view's holder). Its requests go through the owned-state seam.
 */
export const agentKind = defineOwnedKind({
  name: 'agent',
  requests: {
    /** An agent request run by the node that holds the agent. */
    request: { request: RequestMessage, reply: RequestReply },
    /** Many requests of one type run by the node that holds their agents (a fan-out's slice). */
    batch: { request: BatchMessage, reply: BatchReply },
    /** A node's snapshot of the agents it holds (the bus joins answers larger than one message). */
    snapshot: { request: Obj({}), reply: SnapshotReply },
  },
  notifies: {},
});

interface Checker<T> {
  check(value: unknown): value is T;
}

function checker<S extends TSchema>(schema: S): Checker<Static<S>> {
  const compiled = Compile(schema);
  return { check: (value): value is Static<S> => compiled.Check(value) };
}

export const wire = {
  view: checker(ViewMessage),
  disconnect: checker(DisconnectMessage),
  streamOpen: checker(StreamOpenMessage),
  streamOpenReply: checker(StreamOpenReply),
  streamOut: checker(StreamOutAny),
  streamIn: checker(StreamInMessage),
};

type Compiled = ReturnType<typeof Compile>;
const payloadChecks = new Map<string, Compiled>(
  agentRequestTypes.map((t) => [t, Compile(agentRequests[t].payload)]),
);
const resultChecks = new Map<string, Compiled>(
  agentRequestTypes.map((t) => [t, Compile(agentRequests[t].result)]),
);
const paramChecks = new Map(Object.entries(streamKinds).map(([k, v]) => [k, Compile(v.params)]));
const openedChecks = new Map(Object.entries(streamKinds).map(([k, v]) => [k, Compile(v.opened)]));

/** The agent catalog's checks, for what crosses between processes. */
export const catalog = {
  isRequestType: (type: string): boolean => payloadChecks.has(type),
  payloadValid: (type: string, payload: unknown): boolean => payloadChecks.get(type)?.Check(payload) === true,
  resultValid: (type: string, result: unknown): boolean => resultChecks.get(type)?.Check(result) === true,
  paramsValid: (kind: string, params: unknown): boolean => paramChecks.get(kind)?.Check(params) === true,
  openedValid: (kind: string, info: unknown): boolean => openedChecks.get(kind)?.Check(info) === true,
};

/**
 * What a call to another process failed with, as the error a local call would have thrown: `type` names the
 * request (or `stream.open`) in a timeout. The bus's errors are mapped once, by the owned-state seam.
 */
export function callError(error: unknown, assetId: string, type: string): Error {
  return ownedCallError(
    error,
    {
      // No process answers the owner's subject while the bus is up: the holder is gone, and so is the agent.
      gone: () => new AgentOfflineError(assetId),
      // The bus is down: the holder may well be serving the agent, it just cannot be reached from here now.
      unavailable: () => new ClusterUnavailableCallError(assetId),
      timeout: () => new AgentTimeoutError(assetId, type),
      failed: (message) => new AgentReplyError('failed', message),
    },
    [AgentOfflineError, ClusterUnavailableCallError, AgentTimeoutError, AgentReplyError],
  );
}

/** What a local call's error says to the caller on another process; anything else is rethrown. */
export function replyOfError(error: unknown): ErrorReply {
  if (error instanceof AgentOfflineError) return { ok: false, error: 'offline' };
  if (error instanceof AgentTimeoutError) return { ok: false, error: 'timeout' };
  if (error instanceof AgentReplyError)
    return {
      ok: false,
      error: 'reply',
      code: error.code,
      message: error.message.slice(0, maxReplyMessageChars),
    };
  throw error;
}
