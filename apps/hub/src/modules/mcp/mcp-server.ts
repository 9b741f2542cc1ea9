/**
 * The MCP server of one request (stateless, decision 0073): the SDK's low-level Server with tools/list and
 * tools/call over the tool catalogue of protocol (mcp-tools.ts), on the SDK's Streamable HTTP transport in JSON
 * response mode. A request gets a server of its own, for its caller; nothing outlives the request.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpToolNamed, mcpTools, routes, type McpTool, type RouteContract } from '@svc/protocol';
import type { ActionContext, Principal } from '../../access/principal.js';
import { authorize } from '../../http/authorize.js';
import { hubVersion } from '../../platform/version.js';
import { callTool, type ToolCallDeps } from './mcp-tool-call.js';

const instructions =
  'Tools of an svc hub: read the fleet (assets, groups, search, services, disks, logs, metrics, alerts, ' +
  'incidents, audit) and act on it (exec, services, power, containers, saved actions, alerts). Each tool is ' +
  'one route of the hub API, run with this credential: what it may not do is refused, and every call is ' +
  'audited. Ids are prefixed (ast_ for assets, grp_ for groups, alr_ for alerts).';

/**
 * One validator for every request's server: the SDK makes a new Ajv (formats and meta-schemas compiled) per
 * server otherwise, which cost more than the tool call itself. It holds no per-request state.
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
 * server under McpServer (its registerTool takes zod only).
 */
function createServer(deps: ToolCallDeps, ctx: ActionContext): McpServer {
  const mcp = new McpServer(
    { name: 'svc-hub', version: hubVersion },
    { capabilities: { tools: { listChanged: false } }, instructions, jsonSchemaValidator },
  );
  const { server } = mcp;
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: mcpTools.filter((tool) => mayCall(ctx.principal, tool)).map(toolListing),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = mcpToolNamed(request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `No tool named ${request.params.name}.`);
    return callTool(deps, ctx, tool, request.params.arguments ?? {});
  });
  return mcp;
}

export interface McpExchange {
  /** The request as the web standard has it (method, URL, headers); its body comes parsed. */
  request: Request;
  body: unknown;
  ctx: ActionContext;
}

/** Answers one MCP HTTP request for its caller. */
export async function answerMcpRequest(deps: ToolCallDeps, exchange: McpExchange): Promise<Response> {
  const server = createServer(deps, exchange.ctx);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(exchange.request, { parsedBody: exchange.body });
  } finally {
    await server.close();
  }
}
