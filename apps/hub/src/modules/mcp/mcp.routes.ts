import type { FastifyReply, FastifyRequest } from 'fastify';
import { mcpSessionHeader } from '@svc/protocol';
import { rawContext } from '../../http/raw-context.js';
import type { RawHandlers } from '../../http/register-routes.js';
import type { TransportRequest } from '../../http/transport-security.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { policyDisabled } from '../../platform/policy-error.js';
import { createMcpEndpoint } from './mcp-server.js';
import { isMcpSessionOf, newMcpSessionId } from './mcp-session.js';
import type { ToolCallDeps } from './mcp-tool-call.js';
import { isInitialize } from './message-kinds.js';

export interface McpRouteDeps extends ToolCallDeps {
  isEnabled(): boolean;
  /** Whether the request's Origin is this hub's own. */
  isSameOrigin(request: TransportRequest): boolean;
}

/** `POST /mcp`: behind the guard (a credential, its rate limits), then the policy, the Origin and the session. */
export function mcpRoutes(deps: McpRouteDeps) {
  const endpoint = createMcpEndpoint(deps);
  return {
    mcp: async (request: FastifyRequest, reply: FastifyReply) => {
      if (!deps.isEnabled()) throw policyDisabled('policy.mcp_enabled');
      // DNS rebinding: a page elsewhere must not drive the hub through a browser that can reach it.
      if (request.headers.origin !== undefined && !deps.isSameOrigin(request)) {
        throw new HubError(
          'forbidden',
          'Cross-origin MCP request refused: the Origin header must be this hub.',
        );
      }
      // One message per request (the current specification has no batches): each tool call is one request of
      // the key's rate limits, as a REST call is.
      if (Array.isArray(request.body)) {
        throw validationError('body', 'send one JSON-RPC message per request; batches are not accepted');
      }
      const ctx = { ...rawContext(request), via: 'mcp' as const };
      const presented = request.headers[mcpSessionHeader];
      if (typeof presented === 'string' && !isMcpSessionOf(presented, ctx.principal)) {
        throw new HubError('not_found', 'No such MCP session for this credential: initialize a new one.');
      }
      const answer = await endpoint.answer({ headers: request.headers, body: request.body, ctx });
      if (answer.status === 200 && isInitialize(request.body)) {
        void reply.header(mcpSessionHeader, newMcpSessionId(ctx.principal));
      }
      if (answer.body === null) return reply.code(answer.status).send();
      return reply.code(answer.status).type('application/json').send(answer.body);
    },
  } satisfies RawHandlers;
}
