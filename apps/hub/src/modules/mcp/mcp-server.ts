/**
 * The MCP server (stateless, decision 0073 and its addendum): the SDK's low-level Server with tools/list and
 * tools/call over the tool catalogue of protocol (mcp-tools.ts), one per hub, answering each HTTP request's one
 * message in JSON through exchange-transport.ts. Nothing of a caller outlives its request.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  ListToolsRequestSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpToolNamed, mcpTools, routes, type McpTool, type RouteContract } from '@svc/protocol';
import type { ActionContext, Principal } from '../../access/principal.js';
import { authorize } from '../../http/authorize.js';
import { hubVersion } from '../../platform/version.js';
import { createExchangeTransport, type ExchangeTransport } from './exchange-transport.js';
import { isInitialize, isRequest, isResult, plainToolCall, type PlainToolCall } from './message-kinds.js';
import { callTool, toolResultOf, type ToolCallDeps } from './mcp-tool-call.js';
import { toolAnswer, toolFailure } from './tool-answer.js';

const instructions =
  'Tools of an svc hub: read the fleet (assets, groups, search, services, disks, logs, metrics, alerts, ' +
  'incidents, audit) and act on it (exec, services, power, containers, saved actions, alerts). Each tool is ' +
  'one route of the hub API, run with this credential: what it may not do is refused, and every call is ' +
  'audited. Ids are prefixed (ast_ for assets, grp_ for groups, alr_ for alerts).';

/**
 * One validator, given to the server explicitly: it holds no per-request state.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** Whether the caller's role and scopes let it call the tool's route at all (its assets are checked per call). */
function mayCall(principal: Principal, tool: McpTool): boolean {
  const contract: RouteContract = { ...routes[tool.route] };
  delete contract.asset;
  try {
    authorize(contract, principal, {});
    return true;
  } catch {
    return false;
  }
}

function toolListing(tool: McpTool) {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: tool.annotations,
  };
}

/**
 * The tools' schemas are JSON Schemas from protocol, not zod: the tools handlers go on the SDK's protocol-level
 * server under McpServer (its registerTool takes zod only). Each handler runs for the caller of its request.
 */
function createServer(deps: ToolCallDeps, transport: ExchangeTransport): McpServer {
  const mcp = new McpServer(
    { name: 'svc-hub', version: hubVersion },
    { capabilities: { tools: { listChanged: false } }, instructions, jsonSchemaValidator },
  );
  const { server } = mcp;
  const callerOf = (id: RequestId): ActionContext => {
    const ctx = transport.callerOf(id);
    if (!ctx) throw new McpError(ErrorCode.InternalError, 'The request has no caller.');
    return ctx;
  };
  server.setRequestHandler(ListToolsRequestSchema, (_request, extra) => {
    const { principal } = callerOf(extra.requestId);
    return { tools: mcpTools.filter((tool) => mayCall(principal, tool)).map(toolListing) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const ctx = callerOf(extra.requestId);
    const tool = mcpToolNamed(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool named ${request.params.name}.`);
    return toolResultOf(await callTool(deps, ctx, tool, request.params.arguments ?? {}));
  });
  return mcp;
}

interface McpExchange {
  /** The headers of the HTTP request that carried the message; its body comes parsed. */
  headers: IncomingHttpHeaders;
  body: unknown;
  ctx: ActionContext;
}

interface McpAnswer {
  status: number;
  /** JSON text; null for no body. */
  body: string | null;
}

export interface McpEndpoint {
  /** Answers one MCP HTTP request (a POST) for its caller. */
  answer(exchange: McpExchange): Promise<McpAnswer>;
}

/** A JSON-RPC error without an id, as the Streamable HTTP transport answers a request it cannot take. */
function refusal(status: number, code: number, message: string): McpAnswer {
  return { status, body: JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }) };
}

function isTextContent(value: unknown): value is { type: 'text'; text: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'text' &&
    typeof (value as { text?: unknown }).text === 'string'
  );
}

/**
 * The answer as JSON. A tool result's structured content is written from its text copy, which is the same JSON
 * (mcp-tool-call.ts), instead of being serialized once more.
 */
function serialize(message: JSONRPCMessage): string {
  if (!isResult(message)) return JSON.stringify(message);
  const { structuredContent, ...result } = message.result;
  const first: unknown = Array.isArray(result.content) ? result.content[0] : undefined;
  if (structuredContent === undefined || !isTextContent(first)) return JSON.stringify(message);
  const rest = JSON.stringify({ jsonrpc: message.jsonrpc, id: message.id, result });
  return `${rest.slice(0, -2)},"structuredContent":${first.text}}}`;
}

/**
 * A plain tools/call of a known tool, answered without the SDK's per-call machinery (a zod parse of the request
 * three times and of the result once, an AbortController, the transport's round trip): the same tool call, the
 * same route with the same guard, and the same answer, written as text (tool-answer.ts).
 */
async function answerToolCall(
  deps: ToolCallDeps,
  ctx: ActionContext,
  call: PlainToolCall,
  tool: McpTool,
): Promise<string> {
  const id = JSON.stringify(call.id);
  try {
    return toolAnswer(id, await callTool(deps, ctx, tool, call.arguments));
  } catch (error) {
    return toolFailure(id, error);
  }
}

/** The refusal of a request after initialization that names a protocol version the hub does not speak. */
function unsupportedVersion(headers: IncomingHttpHeaders): McpAnswer | null {
  const version = headers['mcp-protocol-version'];
  if (typeof version !== 'string' || SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  return refusal(
    400,
    -32000,
    `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`,
  );
}

function isJsonContentType(value: string | undefined): boolean {
  return value?.split(';', 1)[0]?.trim().toLowerCase() === 'application/json';
}

/**
 * The process's MCP server, stateless, answering in JSON (never a stream). The HTTP rules are the Streamable HTTP
 * transport's for a POST: an Accept of both JSON and event streams, a JSON body that is one JSON-RPC message, a
 * supported protocol version after initialization; a notification or response is taken with 202 and nothing more
 * (a stateless server has no request of the caller's to cancel, and must not see another caller's).
 */
export function createMcpEndpoint(deps: ToolCallDeps): McpEndpoint {
  const transport = createExchangeTransport();
  const server = createServer(deps, transport);
  void server.connect(transport);
  return {
    async answer({ headers, body, ctx }) {
      const accept = headers.accept ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
        return refusal(
          406,
          -32000,
          'Not Acceptable: Client must accept both application/json and text/event-stream',
        );
      }
      if (!isJsonContentType(headers['content-type'])) {
        return refusal(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      }
      // The fast path: a plain tools/call of a known tool (its shape checked member by member, message-kinds.ts).
      const call = plainToolCall(body);
      const tool = call ? mcpToolNamed(call.name) : undefined;
      if (call && tool) {
        return (
          unsupportedVersion(headers) ?? { status: 200, body: await answerToolCall(deps, ctx, call, tool) }
        );
      }
      const parsed = JSONRPCMessageSchema.safeParse(body);
      if (!parsed.success) return refusal(400, -32700, 'Parse error: Invalid JSON-RPC message');
      const message = parsed.data;
      const refused = isInitialize(message) ? null : unsupportedVersion(headers);
      if (refused) return refused;
      if (!isRequest(message)) return { status: 202, body: null };
      return { status: 200, body: serialize(await transport.exchange(message, ctx)) };
    },
  };
}
