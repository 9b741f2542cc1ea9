/**
 * One tool call: the tool's arguments placed in its route's request, audited with the caller, run through the
 * route itself (http/internal-dispatch.ts), and the route's answer turned into a tool result: its data as
 * structured content, or its error envelope as an error result the model can read. A result with structured content
 * always has its JSON as its first (text) content: mcp-server.ts writes the answer from that text.
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

/** What tools/call answers (the MCP CallToolResult). */
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

export async function callTool(
  deps: ToolCallDeps,
  ctx: ActionContext,
  tool: McpTool,
  args: Readonly<Record<string, unknown>>,
): Promise<ToolResult> {
  const placed = placeArguments(tool, args);
  if ('unknown' in placed) {
    return errorResult('validation', `The tool ${tool.name} takes no argument "${placed.unknown}".`);
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
  const envelope = isRecord(answer.body) ? answer.body : {};
  if (answer.status >= 400) {
    const code = typeof envelope.error === 'string' ? envelope.error : `http_${String(answer.status)}`;
    const message = typeof envelope.message === 'string' ? envelope.message : 'The route refused the call.';
    return errorResult(code, message);
  }
  if (!('data' in envelope)) {
    return { content: [{ type: 'text', text: `Done (HTTP ${String(answer.status)}).` }] };
  }
  const structured: Record<string, unknown> = { data: envelope.data };
  if (contract.list && isRecord(envelope.meta)) structured.meta = envelope.meta;
  // The text copy is the route's own JSON when the envelope holds nothing more: the data is not serialized again.
  const sameAsRoute = Object.keys(envelope).length === Object.keys(structured).length;
  return {
    content: [{ type: 'text', text: sameAsRoute ? answer.text : JSON.stringify(structured) }],
    ...(tool.outputSchema ? { structuredContent: structured } : {}),
  };
}
