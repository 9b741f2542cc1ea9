/**
 * The JSON-RPC answer to a tools/call taken on the fast path (mcp-server.ts), written as text: a route's success
 * goes in as the route wrote it, its structured content spliced in as is and its text copy escaped once, so the
 * data is neither parsed nor serialized again on its way out (decision 0073, addendum 3). Errors read as the SDK's
 * own Protocol answers a handler that throws.
 */
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { ToolOutcome } from './mcp-tool-call.js';

/** How many kept pages' escaped copies are kept (the pages callers read most, as the route's cache keeps them). */
const keptCopies = 16;

/** Escaped copies of kept list pages' members, by the members' string (the same string while the page is kept). */
const escapedCopies = new Map<string, string>();

/** The members as they read inside a JSON string, without its quotes: `{` and `}` around them need no escape. */
function escapedMembers(members: string, kept: boolean): string {
  const known = kept ? escapedCopies.get(members) : undefined;
  if (known !== undefined) return known;
  const escaped = JSON.stringify(members).slice(1, -1);
  if (kept) {
    if (escapedCopies.size >= keptCopies) {
      const [oldest] = escapedCopies.keys();
      if (oldest !== undefined) escapedCopies.delete(oldest);
    }
    escapedCopies.set(members, escaped);
  }
  return escaped;
}

/** The answer of a call with this id (already JSON) that came to this outcome. */
export function toolAnswer(id: string, outcome: ToolOutcome): string {
  if ('result' in outcome) return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(outcome.result)}}`;
  const text = `[{"type":"text","text":"{${escapedMembers(outcome.members, outcome.kept === true)}}"}]`;
  const structured = outcome.structured ? `,"structuredContent":{${outcome.members}}` : '';
  return `{"jsonrpc":"2.0","id":${id},"result":{"content":${text}${structured}}}`;
}

function memberOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** The answer of a call with this id (already JSON) whose handler threw: the SDK's code, message and data. */
export function toolFailure(id: string, error: unknown): string {
  const code = memberOf(error, 'code');
  const message = memberOf(error, 'message');
  const data = memberOf(error, 'data');
  const fields = {
    code: Number.isSafeInteger(code) ? code : ErrorCode.InternalError,
    message: message ?? 'Internal error',
    ...(data !== undefined ? { data } : {}),
  };
  return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(fields)}}`;
}
