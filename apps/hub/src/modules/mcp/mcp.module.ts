import type { TransportRequest } from '../../http/transport-security.js';
import type { InternalDispatch } from '../../http/internal-dispatch.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import { mcpRoutes } from './mcp.routes.js';

/**
 * The MCP server at `/mcp` (decision 0073): tools from protocol's catalogue, each one route of the API run
 * through the hub's own pipeline with the caller's principal; switched off by `policy.mcp_enabled`.
 */
export function createMcpModule(deps: {
  dispatch: Pick<InternalDispatch, 'run'>;
  audit: Pick<AuditService, 'recordIntent'>;
  isEnabled(): boolean;
  isSameOrigin(request: TransportRequest): boolean;
}) {
  return defineModule({
    name: 'mcp',
    services: {},
    rawHandlers: mcpRoutes(deps),
  });
}
