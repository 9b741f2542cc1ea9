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

/** A tools/call as the fast path takes it (mcp-server.ts): nothing but a name and arguments. */
export interface PlainToolCall {
  id: string | number;
  name: string;
  arguments: Readonly<Record<string, unknown>>;
}

const requestMembers = new Set(['jsonrpc', 'id', 'method', 'params']);
const callMembers = new Set(['name', 'arguments']);

function hasOnly(value: Record<string, unknown>, members: ReadonlySet<string>): boolean {
  return Object.keys(value).every((member) => members.has(member));
}

/**
 * A tools/call request with only a name and plain arguments (no `_meta`, no task), checked member by member on
 * the body as Fastify parsed it: whatever this accepts, the SDK's JSONRPCMessageSchema and CallToolRequestSchema
 * accept as well (a strict JSON-RPC request, an id that is a string or an integer). Null for anything else, which
 * takes the SDK's path with its own checks and answers.
 */
export function plainToolCall(body: unknown): PlainToolCall | null {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return null;
  const { id, params } = body;
  if (typeof id !== 'string' && !Number.isSafeInteger(id)) return null;
  if (!hasOnly(body, requestMembers) || !isObject(params) || !hasOnly(params, callMembers)) return null;
  const { name, arguments: args } = params;
  if (typeof name !== 'string' || (args !== undefined && !isObject(args))) return null;
  return { id: id as string | number, name, arguments: args ?? {} };
}
