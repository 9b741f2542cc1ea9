/** The MCP server: the Model Context Protocol over Streamable HTTP, its tools the API's own routes (mcp-tools.ts). */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';

/** Where MCP clients send their JSON-RPC messages (the MCP "endpoint" of the Streamable HTTP transport). */
export const mcpPath = '/mcp';

/**
 * The session id header of the Streamable HTTP transport. The hub's ids name the key that opened the session
 * (docs/decisions/0073-mcp-server.md): another credential presenting it is refused with 404.
 */
export const mcpSessionHeader = 'mcp-session-id';

/** The audit action of every tool call (admins filter MCP use with `GET /audit/events?action=mcp.tool_call`). */
export const mcpToolCallAction = 'mcp.tool_call';

/** What `GET /hub/status` says of the MCP server. */
export const McpStatus = Type.Object(
  {
    /** `policy.mcp_enabled`: off, `/mcp` answers 403 `policy_disabled` and no tool runs. */
    enabled: Type.Boolean(),
    /** Tool calls in the last 24 hours, across the cluster (audit action `mcp.tool_call`). */
    tool_calls_24h: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false },
);
export type McpStatus = Static<typeof McpStatus>;

export const mcpContracts = {
  mcp: defineRoute({
    name: 'mcp',
    surface: 'root',
    method: 'POST',
    path: mcpPath,
    auth: 'authenticated',
    carriesCalls: true,
    summary: 'The MCP server (Streamable HTTP): tools that read and act on the fleet through these routes',
    description:
      'JSON-RPC messages of the Model Context Protocol, answered as JSON (stateless: any hub process answers ' +
      'any request). Each tool runs one route of this API with the caller’s credential: authorized, ' +
      'rate limited and audited as that route. A request with an Origin header other than the hub’s own is ' +
      'refused with 403; `policy.mcp_enabled` off refuses every request with 403 `policy_disabled`. ' +
      'GET and DELETE are not offered (405): the hub keeps no server-to-client stream and no session state.',
    raw: true,
  }),
} satisfies Record<string, RouteContract>;
