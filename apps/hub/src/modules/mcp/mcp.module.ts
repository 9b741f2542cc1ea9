import type { TransportRequest } from '../../http/transport-security.js';
import type { InternalDispatch } from '../../http/internal-dispatch.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import type { Logger } from '../../platform/logger.js';
import { mcpRoutes } from './mcp.routes.js';
import { createReadAudit } from './read-audit.js';

/**
 * The MCP server at `/mcp` (decision 0073): tools from protocol's catalogue, each one route of the API run
 * through the hub's own pipeline with the caller's principal; switched off by `policy.mcp_enabled`.
 */
export function createMcpModule(deps: {
  dispatch: Pick<InternalDispatch, 'run'>;
  audit: Pick<AuditService, 'recordIntent' | 'recordOfMany'>;
  logger: Pick<Logger, 'error'>;
  isEnabled(): boolean;
  isSameOrigin(request: TransportRequest): boolean;
}) {
  const readAudit = createReadAudit({
    audit: deps.audit,
    onError: (error) => {
      deps.logger.error({ err: error }, 'MCP read audit write failed');
    },
  });
  return defineModule({
    name: 'mcp',
    services: { readAudit },
    rawHandlers: mcpRoutes({ ...deps, readAudit }),
    close: () => readAudit.flush(),
  });
}
