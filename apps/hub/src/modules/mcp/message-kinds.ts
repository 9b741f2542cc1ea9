/**
 * Which kind of JSON-RPC message a value is, by its members alone. The SDK's own guards (isJSONRPCRequest,
 * isJSONRPCResultResponse…) each run a whole zod parse of the message, answers included: a tool call's answer
 * carries the route's data, so four of them cost more than the route. Here a message is told apart only where
 * it has been validated already: the request by JSONRPCMessageSchema on the way in (mcp-server.ts), the answers
 * because the hub's own server wrote them.
 */
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A request (a method and an id), as opposed to a notification or an answer. */
export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return 'method' in message && 'id' in message;
}

/** The initialize request (its params are the server's to check). */
export function isInitialize(message: unknown): boolean {
  return isObject(message) && message.method === 'initialize' && 'id' in message;
}

/** A successful answer to a request. */
export function isResult(message: JSONRPCMessage): message is Extract<JSONRPCMessage, { result: unknown }> {
  return 'result' in message && 'id' in message;
}

/** An answer, successful or not. */
export function isResponse(
  message: JSONRPCMessage,
): message is Extract<JSONRPCMessage, { id: unknown; result: unknown } | { id: unknown; error: unknown }> {
  return 'id' in message && ('result' in message || 'error' in message);
}
