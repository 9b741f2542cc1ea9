/**
 * One tool call: the tool's arguments placed in its route's request, audited with the caller, run through the
 * route itself (http/internal-dispatch.ts), and the route's answer turned into a tool result: its data as
 * structured content, or its error envelope as an error result the model can read. A success is passed on as the
 * route wrote it, never parsed and written again (decision 0073, addendum 3): mcp-server.ts splices that JSON
 * into the answer as structured content and, escaped once, as its text copy.
 */
import {
  mcpToolCallAction,
  routes,
  type McpArgumentPlace,
  type McpTool,
  type RouteContract,
} from '@svc/protocol';
import type { ActionContext } from '../../access/principal.js';
import type { InternalDispatch } from '../../http/internal-dispatch.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ReadAudit } from './read-audit.js';

/** What tools/call answers (the MCP CallToolResult), as an object. */
export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolCallDeps {
  dispatch: Pick<InternalDispatch, 'run'>;
  audit: Pick<AuditService, 'recordIntent'>;
  /** Where read-only calls are recorded, in batches (read-audit.ts). */
  readAudit: Pick<ReadAudit, 'record'>;
}

interface PlacedArguments {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
}

function errorResult(code: string, message: string): ToolResult {
  return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true };
}

/** The arguments in their places, or the name of one the tool does not take. */
function placeArguments(
  tool: McpTool,
  args: Readonly<Record<string, unknown>>,
): PlacedArguments | { unknown: string } {
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  // A route with a body gets one, empty when no argument fills it (its own validation says what is missing).
  let body: unknown = Object.values(tool.places).includes('body') ? {} : undefined;
  for (const [name, value] of Object.entries(args)) {
    const place: McpArgumentPlace | undefined = tool.places[name];
    if (place === undefined) return { unknown: name };
    if (place === 'params') params[name] = typeof value === 'string' ? value : JSON.stringify(value);
    else if (place === 'query') query[name] = value;
    else if (tool.wholeBody) body = value;
    else body = { ...(body as Record<string, unknown>), [name]: value };
  }
  return { params, query, body };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The asset a call names, for the audit record (so a restricted key's audit view shows its own calls). */
function assetOf(contract: RouteContract, params: Readonly<Record<string, string>>): string | null {
  if (!contract.asset) return null;
  const raw = params[contract.asset.param] ?? '';
  if (contract.asset.form === 'asset') return raw;
  const colon = raw.indexOf(':');
  return colon === -1 ? raw : raw.slice(0, colon);
}

/**
 * What a tool call comes to: a result, or the structured content as the route's own JSON text, given by its
 * members (`"data":…`, with `"meta"` for a list: the object is `{members}`), which is the whole result's text
 * copy and, when the tool has an output schema, its structured content too. `kept` says the members are a list
 * page its route keeps (the same string each time the page is served), so its escaped copy may be kept too.
 */
export type ToolOutcome = { result: ToolResult } | { members: string; structured: boolean; kept?: true };

/** The route's success envelope: `request_id` (an id of the hub's, never escaped) written first. */
const requestIdFirst = /^\{"request_id":"[A-Za-z0-9_-]*",/;

/** The outcome as a result object (for the SDK's path, which takes objects). */
export function toolResultOf(outcome: ToolOutcome): ToolResult {
  if ('result' in outcome) return outcome.result;
  const json = `{${outcome.members}}`;
  const text: ToolResult['content'] = [{ type: 'text', text: json }];
  if (!outcome.structured) return { content: text };
  return { content: text, structuredContent: JSON.parse(json) as Record<string, unknown> };
}

/** The route's success as the tool's structured content. */
function successOf(
  contract: RouteContract,
  tool: McpTool,
  answer: { status: number; text: string; typed: boolean; members?: string },
): ToolOutcome {
  const structured = tool.outputSchema !== undefined;
  // A list page its route keeps serialized: its members as kept.
  if (answer.members !== undefined) return { members: answer.members, structured, kept: true };
  // A typed route wrote exactly its envelope: without its request id it is the structured content already.
  const head = answer.typed ? requestIdFirst.exec(answer.text) : null;
  if (head) return { members: answer.text.slice(head[0].length, -1), structured };
  const envelope: unknown = answer.text === '' ? null : JSON.parse(answer.text);
  if (!isRecord(envelope) || !('data' in envelope)) {
    return { result: { content: [{ type: 'text', text: `Done (HTTP ${String(answer.status)}).` }] } };
  }
  const content: Record<string, unknown> = { data: envelope.data };
  if (contract.list && isRecord(envelope.meta)) content.meta = envelope.meta;
  return { members: JSON.stringify(content).slice(1, -1), structured };
}

/** A refusal or failure of the route as an error result: `<code>: <message>` from its error envelope. */
function refusalOf(answer: { status: number; text: string }): ToolOutcome {
  let envelope: unknown = null;
  try {
    envelope = JSON.parse(answer.text);
  } catch {
    // Not JSON: the status says what it was.
  }
  const fields = isRecord(envelope) ? envelope : {};
  const code = typeof fields.error === 'string' ? fields.error : `http_${String(answer.status)}`;
  const message = typeof fields.message === 'string' ? fields.message : 'The route refused the call.';
  return { result: errorResult(code, message) };
}

export async function callTool(
  deps: ToolCallDeps,
  ctx: ActionContext,
  tool: McpTool,
  args: Readonly<Record<string, unknown>>,
): Promise<ToolOutcome> {
  const placed = placeArguments(tool, args);
  if ('unknown' in placed) {
    return {
      result: errorResult('validation', `The tool ${tool.name} takes no argument "${placed.unknown}".`),
    };
  }
  const contract: RouteContract = routes[tool.route];
  // Every call is in the audit trail with the key: one that acts before it runs (and not at all if that write
  // fails), a read in the next batch. The route audits its own effect as well.
  const record = {
    action: mcpToolCallAction,
    targetType: 'mcp_tool',
    targetId: tool.name,
    assetId: assetOf(contract, placed.params),
    detail: { route: contract.name },
  };
  if (tool.annotations.readOnlyHint) deps.readAudit.record(ctx, record);
  else await deps.audit.recordIntent(ctx, [record]);
  const answer = await deps.dispatch.run({
    contract,
    params: placed.params,
    query: placed.query,
    body: placed.body,
    principal: ctx.principal,
    ip: ctx.ip ?? '127.0.0.1',
    via: 'mcp',
  });
  return answer.status >= 400 ? refusalOf(answer) : successOf(contract, tool, answer);
}
