/**
 * The asking side of the NATS bus's requests (nats-bus.ts): each request waits on this bus's inbox under its
 * own id until a signed answer naming it arrives (joined from chunks when large), its timeout ends it, or the
 * connection goes down.
 */
import { createInbox, type Msg, type NatsConnection } from 'nats';
import {
  ClusterNoResponderError,
  ClusterRemoteError,
  ClusterTimeoutError,
  ClusterUnavailableError,
} from './cluster-bus.js';
import { addChunk, maxChunkCount, messageOf, readReply, type BusWire, type Joining } from './nats-wire.js';

interface PendingRequest {
  subject: string;
  /** The id of the request's first message: every answer names it. */
  requestId: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** The first chunked answer being joined (a request without a queue group may get several answers). */
  chunks: Joining | null;
}

export interface PendingRequests {
  /** The subject this bus's answers arrive on (subscribe it on each connection; hand them to `onReply`). */
  inboxSubjects: string;
  /** Sends a request already encoded; settles with the answer's data or an error. */
  send(
    conn: NatsConnection,
    request: { subject: string; fullSubject: string; body: Uint8Array; timeoutMs: number },
  ): Promise<unknown>;
  onReply(msg: Msg): void;
  /** Fails every request waiting (the connection went down, or the bus closed). */
  failAll(reason: string): void;
}

export function createPendingRequests(deps: { nodeId: string; wire: BusWire }): PendingRequests {
  const { wire } = deps;
  const inbox = createInbox(`_INBOX_SVC.${deps.nodeId.replace(/\./g, '_')}`);
  let sequence = 0;
  const pending = new Map<string, PendingRequest>();

  function settle(id: string, outcome: { value: unknown } | { error: Error }): void {
    const request = pending.get(id);
    if (!request) return;
    pending.delete(id);
    clearTimeout(request.timer);
    if ('error' in outcome) request.reject(outcome.error);
    else request.resolve(outcome.value);
  }

  function finishReply(id: string, request: PendingRequest, bytes: Uint8Array): void {
    const reply = readReply(bytes);
    if (!reply) {
      // Not an answer: the request waits for a valid one or its timeout.
      request.chunks = null;
      wire.dropped('reply');
      return;
    }
    if (reply.ok) settle(id, { value: reply.data });
    else settle(id, { error: new ClusterRemoteError(request.subject, reply.error) });
  }

  function onReply(msg: Msg): void {
    const id = msg.subject.slice(inbox.length + 1);
    const request = pending.get(id);
    // Late answers, and the second answer of a request without a queue group, have nothing waiting.
    if (!request) return;
    // The server's own "no responders" status: unsigned, empty, and it can only fail the request.
    if (msg.headers?.code === 503 && msg.data.length === 0) {
      settle(id, { error: new ClusterNoResponderError(request.subject) });
      return;
    }
    const opened = wire.verified(msg);
    if (!opened) return;
    // An answer to an earlier request, replayed into this one's inbox.
    if (opened.re !== request.requestId) {
      wire.dropped('answer to another request');
      return;
    }
    // Answers are never batched: only publishes are (decision 0083).
    if (opened.batch !== null) {
      wire.dropped('batch');
      return;
    }
    if (!opened.chunk) {
      finishReply(id, request, msg.data);
      return;
    }
    if (opened.chunk.count > maxChunkCount) {
      wire.dropped('chunk');
      return;
    }
    request.chunks ??= {
      from: opened.from,
      parts: new Array<Uint8Array | undefined>(opened.chunk.count),
      received: 0,
      bytes: 0,
    };
    if (request.chunks.from !== opened.from) return;
    const whole = addChunk(request.chunks, opened.chunk, msg.data);
    if (whole === null) return;
    if (whole === 'duplicate') {
      wire.dropped('chunk duplicate');
      return;
    }
    if (whole === 'too large') {
      settle(id, { error: new ClusterRemoteError(request.subject, 'the answer is larger than 64 MiB') });
      return;
    }
    finishReply(id, request, whole);
  }

  return {
    inboxSubjects: `${inbox}.*`,

    send(conn, { subject, fullSubject, body, timeoutMs }) {
      sequence += 1;
      const id = String(sequence);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          settle(id, { error: new ClusterTimeoutError(subject) });
        }, timeoutMs);
        const request: PendingRequest = { subject, requestId: '', resolve, reject, timer, chunks: null };
        pending.set(id, request);
        try {
          // Nothing is received before this returns: the answers' handler runs on a later turn.
          request.requestId = wire.sendSigned(conn, fullSubject, body, { reply: `${inbox}.${id}` });
        } catch (error) {
          settle(id, { error: new ClusterUnavailableError(messageOf(error)) });
        }
      });
    },

    onReply,

    failAll(reason) {
      for (const id of [...pending.keys()]) settle(id, { error: new ClusterUnavailableError(reason) });
    },
  };
}
