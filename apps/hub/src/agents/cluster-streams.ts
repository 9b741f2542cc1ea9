/**
 * Channel streams across hub processes (decision 0039). The process that holds the agent (the holder) opens
 * the stream on its local gateway and relays it over two subjects per stream: `.out` (output and the end,
 * holder → opener) and `.in` (input, resize, ack, close, opener → holder). Credit flow control stays end to
 * end: the holder acknowledges output on its local handle only when the opener's consumer did, so at most
 * one window of output is ever on the bus or in memory for a stream, whatever the agent's source does.
 * Input is bounded on the opener too: what the holder has not confirmed counts against the same queue a
 * local stream has. Either side's process going away ends the stream on the other, with a reason: each
 * stream is held against its peer node in the owned-state seam (platform/cluster/owned-state.ts), which is
 * also where its open subject comes from (`svc.node.<holder>.<kind>.open`). Any kind of owned state that
 * streams (agents, terminal sessions) uses this relay.
 */
import { randomBytes } from 'node:crypto';
import { streamLimits, type StreamKind, type StreamOpenedInfo } from '@svc/protocol';
import { ClusterNoResponderError } from '../platform/cluster/cluster-bus.js';
import { ownedSubject, type OwnedStates } from '../platform/cluster/owned-state.js';
import type { Logger } from '../platform/logger.js';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  type AgentStreamHandle,
  type AgentStreams,
  type OpenStreamOptions,
  type StreamEnd,
} from './agent-gateway.js';
import { AgentNotDeliveredError } from './cluster-reroute.js';
import {
  callError,
  catalog,
  clusterLimits,
  clusterSubjects,
  replyOfError,
  wire,
  type StreamInMessage,
  type StreamOpenMessage,
  type StreamOpenReply,
  type StreamOutAny,
} from './cluster-wire.js';

const relayDefaults = {
  openTimeoutMs: 15_000,
  /** Added to the open's timeout for the hop between processes. */
  marginMs: 2_000,
  /** Input not yet confirmed by the holder, plus what the holder queues, before write() refuses. */
  inputQueueBytes: 64 * 1024,
} as const;

export interface StreamRelayDeps {
  owned: OwnedStates;
  /** The kind of owned state whose streams these are: opens go to `svc.node.<holder>.<kind>.open`. */
  kind: string;
  local: AgentStreams;
  logger: Logger;
  openTimeoutMs?: number;
  marginMs?: number;
  /**
   * Whether this process holds the agent. When it does not, an open is answered `not_held` before anything
   * reaches an agent, and the opener may look for the agent's new holder (cluster-reroute.ts).
   */
  isHeld?: (assetId: string) => boolean;
}

export interface StreamRelay {
  /** Opens a stream on an agent another process holds. */
  open<K extends StreamKind>(
    holder: string,
    assetId: string,
    options: OpenStreamOptions<K>,
  ): Promise<AgentStreamHandle<K>>;
  /** Answers stream opens for the agents this process holds. */
  start(): void;
  /** Ends every relayed stream (this process stops). */
  close(reason: string): void;
}

/** A relayed stream's end, and its hold on the peer node. */
interface Relayed {
  end(reason: string): void;
  release(): void;
}

const peerGoneReason = 'the hub process at the other end of the stream went away';

const truncate = (text: string, length: number) => (text.length > length ? text.slice(0, length) : text);

function* pieces(chunk: Buffer): Generator<Buffer> {
  for (let i = 0; i < chunk.length; i += streamLimits.chunkBytes)
    yield chunk.subarray(i, i + streamLimits.chunkBytes);
}

export function createStreamRelay(deps: StreamRelayDeps): StreamRelay {
  const { owned, local, logger } = deps;
  const { bus } = owned;
  const openTimeoutMs = deps.openTimeoutMs ?? relayDefaults.openTimeoutMs;
  const marginMs = deps.marginMs ?? relayDefaults.marginMs;
  const openSubject = (node: string) => ownedSubject(node, deps.kind, 'open');
  const relayed = new Map<string, Relayed>();
  let unrespond: (() => void) | null = null;

  /** Keeps a stream until it ends, or ends it when its peer's process goes away. */
  function track(id: string, peer: string, end: (reason: string) => void): void {
    const release = owned.hold(peer, () => {
      if (relayed.delete(id)) end(peerGoneReason);
    });
    relayed.set(id, { end, release });
  }

  function untrack(id: string): void {
    relayed.get(id)?.release();
    relayed.delete(id);
  }

  function publish(subject: string, message: StreamOutAny | StreamInMessage): void {
    try {
      bus.publish(subject, message);
    } catch (error) {
      logger.debug({ err: error, subject }, 'a stream relay message was not sent');
    }
  }

  // ---- the opener's end --------------------------------------------------------------------------------

  async function open<K extends StreamKind>(
    holder: string,
    assetId: string,
    options: OpenStreamOptions<K>,
  ): Promise<AgentStreamHandle<K>> {
    if (!catalog.paramsValid(options.kind, options.params))
      throw new AgentReplyError('invalid_argument', `invalid ${options.kind} stream parameters`);
    const id = `cs${randomBytes(8).toString('hex')}`;
    const window = Math.min(
      streamLimits.maxWindowBytes,
      Math.max(streamLimits.minWindowBytes, options.windowBytes ?? streamLimits.defaultWindowBytes),
    );
    const timeoutMs = Math.min(120_000, options.timeoutMs ?? openTimeoutMs);
    const inSubject = clusterSubjects.streamIn(id);
    let state: 'opening' | 'open' | 'closed' = 'opening';
    let expectedSeq = 0;
    /** Output delivered to the consumer and not acknowledged yet: never more than the window. */
    let unacked = 0;
    let inputSeq = 0;
    let inputInFlight = 0;
    let holderQueued = 0;
    const early: StreamOutAny[] = [];
    const isClosed = (): boolean => state === 'closed';

    const finish = (end: StreamEnd) => {
      if (state === 'closed') return;
      const wasOpen = state === 'open';
      state = 'closed';
      unsubscribe();
      untrack(id);
      if (wasOpen) options.onClose(end);
    };

    const fail = (reason: string) => {
      publish(inSubject, { t: 'close', reason });
      finish({ reason, by: 'hub', exit: null });
    };

    const onOut = (message: StreamOutAny) => {
      if (message.t === 'written') {
        inputInFlight = Math.max(0, inputInFlight - message.bytes);
        holderQueued = message.queued;
        return;
      }
      if (message.t === 'close') {
        finish({ reason: message.end.reason, by: message.end.by, exit: message.end.exit });
        return;
      }
      if (message.seq !== expectedSeq) {
        fail('the stream relay between hub processes lost output');
        return;
      }
      expectedSeq += 1;
      const chunk = Buffer.from(message.data, 'base64');
      unacked += chunk.length;
      if (unacked > window) {
        fail('the hub process holding the agent sent more than the window');
        return;
      }
      options.onData(chunk);
    };

    const unsubscribe = bus.subscribe(clusterSubjects.streamOut(id), (data, meta) => {
      if (meta.from !== holder || state === 'closed') return;
      if (!wire.streamOut.check(data)) {
        logger.warn({ stream: id, node: holder }, 'an invalid stream message from another hub process');
        if (state === 'open') fail('the hub process holding the agent sent an invalid message');
        return;
      }
      if (state === 'opening') {
        // Output may overtake the open's answer: kept (within the window) until the handle is returned.
        early.push(data);
        return;
      }
      onOut(data);
    });
    track(id, holder, (reason) => {
      finish({ reason, by: 'hub', exit: null });
    });

    const request: StreamOpenMessage = {
      stream: id,
      asset_id: assetId,
      kind: options.kind,
      params: options.params,
      window_bytes: window,
      timeout_ms: timeoutMs,
    };
    let reply: unknown;
    try {
      reply = await bus.request(openSubject(holder), request, {
        timeoutMs: timeoutMs + marginMs,
      });
    } catch (error) {
      // The holder may still open it: told to close it if it does.
      publish(inSubject, { t: 'close', reason: 'the open timed out' });
      untrack(id);
      state = 'closed';
      unsubscribe();
      // No process answers for the holder: the open reached no agent.
      if (error instanceof ClusterNoResponderError) throw new AgentNotDeliveredError(assetId);
      throw callError(error, assetId, 'stream.open');
    }
    const failOpen = (error: Error): never => {
      publish(inSubject, { t: 'close', reason: 'the open failed' });
      untrack(id);
      state = 'closed';
      unsubscribe();
      throw error;
    };
    // The holder went away while the open was on its way (state changes in callbacks).
    if (isClosed()) throw new AgentOfflineError(assetId);
    if (!wire.streamOpenReply.check(reply))
      return failOpen(new AgentReplyError('failed', 'the hub process holding the agent answered invalidly'));
    if (!reply.ok) {
      if (reply.error === 'not_held') return failOpen(new AgentNotDeliveredError(assetId));
      if (reply.error === 'offline') return failOpen(new AgentOfflineError(assetId));
      if (reply.error === 'timeout') return failOpen(new AgentTimeoutError(assetId, 'stream.open'));
      return failOpen(new AgentReplyError(reply.code, reply.message));
    }
    if (!catalog.openedValid(options.kind, reply.info))
      return failOpen(new AgentReplyError('failed', `the agent opened the ${options.kind} stream invalidly`));
    state = 'open';
    const info = reply.info as StreamOpenedInfo<K>;

    const handle: AgentStreamHandle<K> = {
      id,
      assetId,
      kind: options.kind,
      info,
      get closed() {
        return state === 'closed';
      },
      get queuedBytes() {
        return inputInFlight + holderQueued;
      },
      write(chunk) {
        if (state !== 'open') return false;
        if (inputInFlight + holderQueued + chunk.length > relayDefaults.inputQueueBytes) return false;
        inputInFlight += chunk.length;
        for (const piece of pieces(chunk))
          publish(inSubject, { t: 'write', seq: inputSeq++, data: piece.toString('base64') });
        return true;
      },
      resize(cols, rows) {
        if (state !== 'open') return;
        publish(inSubject, { t: 'resize', cols, rows });
      },
      ack(bytes) {
        if (state !== 'open') return;
        const taken = Math.min(Math.max(0, Math.floor(bytes)), unacked);
        if (taken <= 0) return;
        unacked -= taken;
        publish(inSubject, { t: 'ack', bytes: taken });
      },
      close(reason) {
        if (state !== 'open') return;
        const text = truncate(reason, clusterLimits.reasonLength);
        publish(inSubject, { t: 'close', reason: text });
        finish({ reason: text, by: 'hub', exit: null });
      },
    };
    if (early.length > 0) {
      const queued = early.splice(0);
      setImmediate(() => {
        for (const message of queued) if (state === 'open') onOut(message);
      });
    }
    return handle;
  }

  // ---- the holder's end --------------------------------------------------------------------------------

  async function onOpen(data: unknown, opener: string): Promise<StreamOpenReply> {
    if (!wire.streamOpen.check(data)) throw new Error('invalid stream open');
    const { stream: id, asset_id: assetId, kind } = data;
    if (!catalog.paramsValid(kind, data.params))
      return { ok: false, error: 'reply', code: 'invalid_argument', message: `invalid ${kind} stream` };
    if (relayed.has(id))
      return { ok: false, error: 'reply', code: 'invalid_argument', message: 'the stream id is taken' };
    // Not here (any more): nothing reaches an agent, the opener may find its new holder.
    if (deps.isHeld && !deps.isHeld(assetId)) return { ok: false, error: 'not_held' };
    const outSubject = clusterSubjects.streamOut(id);
    let seq = 0;
    let ended = false;
    /** Output sent on to the opener and not acknowledged by it. */
    let forwarded = 0;
    let inputSeq = 0;
    const hasEnded = (): boolean => ended;
    /** A close the opener sent while the open was under way (it gave up waiting). */
    let closedWhileOpening: string | null = null;
    let onIn: ((message: StreamInMessage) => void) | null = null;
    // Subscribed before the open, so an opener that gives up is heard whenever the open completes.
    const unsubscribeIn = bus.subscribe(clusterSubjects.streamIn(id), (message, meta) => {
      if (meta.from !== opener || ended) return;
      if (!wire.streamIn.check(message)) {
        logger.warn({ stream: id, node: opener }, 'an invalid stream message from another hub process');
        if (onIn)
          onIn({ t: 'close', reason: 'the hub process that opened the stream sent an invalid message' });
        else closedWhileOpening = 'the hub process that opened the stream sent an invalid message';
        return;
      }
      if (onIn) onIn(message);
      else if (message.t === 'close') closedWhileOpening = message.reason;
    });
    const end = () => {
      ended = true;
      unsubscribeIn();
      untrack(id);
    };
    let handle: AgentStreamHandle<StreamKind>;
    try {
      handle = await local.openStream(assetId, {
        kind: kind as StreamKind,
        params: data.params as never,
        windowBytes: data.window_bytes,
        timeoutMs: data.timeout_ms,
        onData(chunk) {
          if (ended) return;
          forwarded += chunk.length;
          for (const piece of pieces(chunk))
            publish(outSubject, { t: 'data', seq: seq++, data: piece.toString('base64') });
        },
        onClose(streamEnd) {
          if (ended) return;
          end();
          publish(outSubject, {
            t: 'close',
            end: { ...streamEnd, reason: truncate(streamEnd.reason, clusterLimits.reasonLength) },
          });
        },
      });
    } catch (error) {
      end();
      return replyOfError(error);
    }
    // It may have ended already: its close is on its way to the opener, which keeps it until it has the handle.
    if (hasEnded()) return { ok: true, info: handle.info };
    onIn = (message: StreamInMessage) => {
      switch (message.t) {
        case 'write': {
          if (message.seq !== inputSeq) {
            handle.close('the stream relay between hub processes lost input');
            return;
          }
          inputSeq += 1;
          const chunk = Buffer.from(message.data, 'base64');
          handle.write(chunk);
          publish(outSubject, { t: 'written', bytes: chunk.length, queued: handle.queuedBytes });
          return;
        }
        case 'ack': {
          // The agent gets credit back only for what the opener's consumer took.
          const bytes = Math.min(message.bytes, forwarded);
          if (bytes <= 0) return;
          forwarded -= bytes;
          handle.ack(bytes);
          return;
        }
        case 'resize':
          handle.resize(message.cols, message.rows);
          return;
        case 'close':
          handle.close(message.reason);
          return;
      }
    };
    const abandoned = closedWhileOpening as string | null;
    if (abandoned !== null) {
      handle.close(abandoned);
      return { ok: true, info: handle.info };
    }
    track(id, opener, (reason) => {
      handle.close(reason);
    });
    return { ok: true, info: handle.info };
  }

  return {
    open,

    start() {
      if (!bus.shared || unrespond) return;
      unrespond = bus.respond(openSubject(bus.nodeId), (data, meta) => onOpen(data, meta.from));
    },

    close(reason) {
      unrespond?.();
      unrespond = null;
      for (const [id, stream] of [...relayed]) {
        untrack(id);
        stream.end(reason);
      }
    },
  };
}
