/**
 * Files on an asset, through its agent. Paths are canonicalized here (file-paths.ts); mutations are audited
 * before the agent is asked, so an action whose audit row could not be written never happens.
 */
import { createHash } from 'node:crypto';
import { agentLimits, type AgentRequestResult, type FileMove, type FileWrite } from '@svc/protocol';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { ActionContext } from '../../access/principal.js';
import type { AgentCaller } from '../../agents/agent-call.js';
import type { AssetRow } from '../../agents/asset-reads.js';
import type { AuditService } from '../audit/audit.service.js';
import { requirePath } from '../../agents/agent-paths.js';
import { decodeBase64 } from './file-transfer.js';

interface FileDownload {
  path: string;
  bytes: Buffer;
}

export interface FilesService {
  list(ctx: ActionContext, assetId: string, path: string): Promise<AgentRequestResult<'files.list'>>;
  read(ctx: ActionContext, assetId: string, path: string): Promise<FileDownload>;
  write(ctx: ActionContext, assetId: string, input: FileWrite): Promise<AgentRequestResult<'files.write'>>;
  mkdir(
    ctx: ActionContext,
    assetId: string,
    input: { path: string; recursive?: boolean | undefined },
  ): Promise<AgentRequestResult<'files.mkdir'>>;
  rename(ctx: ActionContext, assetId: string, input: FileMove): Promise<AgentRequestResult<'files.rename'>>;
  copy(ctx: ActionContext, assetId: string, input: FileMove): Promise<AgentRequestResult<'files.copy'>>;
  remove(
    ctx: ActionContext,
    assetId: string,
    input: { path: string; recursive?: boolean | undefined },
  ): Promise<AgentRequestResult<'files.delete'>>;
}

export interface FilesServiceDeps {
  audit: AuditService;
  agents: AgentCaller;
  /** How long a transfer of up to 8 MiB may take through the channel. */
  transferTimeoutMs?: number;
}

function refuseRoot(field: string, path: string, what: string): void {
  if (path === '/') throw validationError(field, `refusing to ${what} the root directory`);
}

export function createFilesService(deps: FilesServiceDeps): FilesService {
  const { audit, agents } = deps;
  const transferTimeoutMs = deps.transferTimeoutMs ?? 120_000;

  /** Loads the asset, refuses it offline, then writes the audit row: all before anything is sent. */
  async function prepare(
    ctx: ActionContext,
    assetId: string,
    action: 'files.write' | 'files.mkdir' | 'files.delete' | 'files.rename' | 'files.copy',
    path: string,
    detail: Record<string, unknown>,
  ): Promise<AssetRow> {
    const row = await agents.loadAsset(ctx.principal, assetId, action);
    agents.requireOnline(row);
    await audit.recordIntent(ctx, [
      { action, targetType: 'file', targetId: path, assetId: row.id, detail: { path, ...detail } },
    ]);
    return row;
  }

  async function move(
    ctx: ActionContext,
    assetId: string,
    input: FileMove,
    type: 'files.rename' | 'files.copy',
  ) {
    const from = requirePath('from', input.from);
    const to = requirePath('to', input.to);
    if (type === 'files.rename') refuseRoot('from', from, 'move');
    if (from === to) throw validationError('to', 'must differ from from');
    const overwrite = input.overwrite ?? false;
    const row = await prepare(ctx, assetId, type, from, { to, overwrite });
    return agents.call(row, type, { from, to, overwrite });
  }

  return {
    async list(ctx, assetId, text) {
      const path = requirePath('path', text);
      const row = await agents.loadAsset(ctx.principal, assetId, 'files.list');
      return agents.call(row, 'files.list', { path }, { timeoutMs: 30_000 });
    },

    async read(ctx, assetId, text) {
      const path = requirePath('path', text);
      const row = await agents.loadAsset(ctx.principal, assetId, 'files.read');
      const result = await agents.call(
        row,
        'files.read',
        { path, max_bytes: agentLimits.fileBytes },
        { timeoutMs: transferTimeoutMs },
      );
      const decoded = decodeBase64(result.data_base64, agentLimits.fileBytes);
      if (!decoded.ok || decoded.bytes.length !== result.size) {
        throw new HubError(
          'upstream_error',
          `asset ${row.name} (${row.id}) sent a file that does not match its stated size of ${result.size} bytes`,
        );
      }
      return { path, bytes: decoded.bytes };
    },

    async write(ctx, assetId, input) {
      const path = requirePath('path', input.path);
      refuseRoot('path', path, 'overwrite');
      const decoded = decodeBase64(input.content_base64, agentLimits.fileBytes);
      if (!decoded.ok) {
        if (decoded.tooLarge) {
          throw new HubError(
            'payload_too_large',
            `the file is larger than the ${agentLimits.fileBytes} bytes an upload may carry`,
          );
        }
        throw validationError('content_base64', 'is not valid base64');
      }
      const overwrite = input.overwrite ?? false;
      const row = await prepare(ctx, assetId, 'files.write', path, {
        size: decoded.bytes.length,
        sha256: createHash('sha256').update(decoded.bytes).digest('hex'),
        overwrite,
      });
      return agents.call(
        row,
        'files.write',
        { path, data_base64: decoded.bytes.toString('base64'), overwrite },
        { timeoutMs: transferTimeoutMs },
      );
    },

    async mkdir(ctx, assetId, input) {
      const path = requirePath('path', input.path);
      const recursive = input.recursive ?? false;
      const row = await prepare(ctx, assetId, 'files.mkdir', path, { recursive });
      return agents.call(row, 'files.mkdir', { path, recursive });
    },

    rename: (ctx, assetId, input) => move(ctx, assetId, input, 'files.rename'),
    copy: (ctx, assetId, input) => move(ctx, assetId, input, 'files.copy'),

    async remove(ctx, assetId, input) {
      const path = requirePath('path', input.path);
      refuseRoot('path', path, 'delete');
      const recursive = input.recursive ?? false;
      const row = await prepare(ctx, assetId, 'files.delete', path, { recursive });
      return agents.call(row, 'files.delete', { path, recursive }, { timeoutMs: 60_000 });
    },
  };
}
