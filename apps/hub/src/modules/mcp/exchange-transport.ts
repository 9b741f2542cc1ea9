/**
 * The transport under the process's one MCP server (decision 0073, addendum): each stateless HTTP request hands
 * its one JSON-RPC request in and gets its answer back, with no server, transport, web Request or Response made
 * per request. Requests from many callers run on the same server at once and may all carry the same id, so each
 * is given an id of its own on the way in (the server's handlers find their caller by it) and gets its own id
 * back on the way out.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ActionContext } from '../../access/principal.js';
import { isResponse } from './message-kinds.js';

interface InFlight {
  /** The id the caller sent. */
  id: RequestId;
  ctx: ActionContext;
  answer(message: JSONRPCMessage): void;
}

export interface ExchangeTransport extends Transport {
  /** Runs one request for its caller; resolves with the server's answer under the caller's own id. */
  exchange(request: JSONRPCRequest, ctx: ActionContext): Promise<JSONRPCMessage>;
  /** The caller of a request in flight, by the id the server saw. */
  callerOf(id: RequestId): ActionContext | undefined;
}

export function createExchangeTransport(): ExchangeTransport {
  const inFlight = new Map<number, InFlight>();
  let nextId = 0;
  const transport: ExchangeTransport = {
    start: () => Promise.resolve(),
    close() {
      transport.onclose?.();
      return Promise.resolve();
    },
    send(message) {
      // Only answers to requests have somewhere to go: a stateless JSON exchange has no stream for anything else.
      if (isResponse(message)) {
        const id = message.id;
        const call = typeof id === 'number' ? inFlight.get(id) : undefined;
        if (call && typeof id === 'number') {
          inFlight.delete(id);
          call.answer({ ...message, id: call.id });
        }
      }
      return Promise.resolve();
    },
    exchange(request, ctx) {
      return new Promise((answer) => {
        // Never reused while the process runs (2^53 requests).
        nextId += 1;
        inFlight.set(nextId, { id: request.id, ctx, answer });
        transport.onmessage?.({ ...request, id: nextId });
      });
    },
    callerOf(id) {
      return typeof id === 'number' ? inFlight.get(id)?.ctx : undefined;
    },
  };
  return transport;
}
