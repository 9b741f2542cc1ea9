/**
 * The admission of a desktop console (`desktop.attach`'s WebSocket upgrade): the caller's role, the interactive
 * policy and the session's owner are checked, and the attach audited, before the handshake; then the console
 * is relayed (desktop-consoles.ts), on this process or to the one holding the session.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { ActionContext, Principal } from '../../access/principal.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import { refuseUpgrade, type UpgradeRecheck } from '../../http/upgrade.js';
import type { AuditService } from '../audit/audit.service.js';
import type { DesktopConsoles } from './desktop-consoles.js';
import { ownerOfRow, type LiveSession } from './desktop-session-state.js';
import type { DesktopSessionTable } from './desktop-session-table.js';
import type { DesktopSessionRow } from './desktop.repository.js';

const sessionIdPattern = /^\/api\/v2\/desktop\/sessions\/(dsk_[0-9a-z]{1,40})\/stream\/?$/;

export interface DesktopAttaches {
  /** Refuses before the handshake, or relays; `recheck` runs the route's checks again when the key changes. */
  attach(
    principal: Principal,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    recheck: UpgradeRecheck,
  ): void;
  close(): void;
}

export function createDesktopAttaches(deps: {
  table: DesktopSessionTable;
  consoles: DesktopConsoles;
  audit: AuditService;
  events: EventBus;
  logger: Logger;
  requireInteractive: () => void;
}): DesktopAttaches {
  const { table, consoles, audit, events, logger, requireInteractive } = deps;
  const { sessions } = table;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });

  function attach(
    principal: Principal,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    recheck: UpgradeRecheck,
  ): void {
    const found = sessionIdPattern.exec((request.url ?? '').split('?')[0] ?? '');
    const target = async (): Promise<{ local: LiveSession } | { remote: DesktopSessionRow }> => {
      if (principal.role === 'viewer')
        throw new HubError('read_only_role', 'viewers cannot attach to a desktop');
      requireInteractive();
      if (!found?.[1]) throw new HubError('not_found', 'no such desktop session');
      const local = sessions.get(found[1]);
      if (local) return { local: table.sessionFor(principal, found[1]) };
      // Held by another process: the same checks, on its row (decision 0043).
      return { remote: await table.remoteFor(principal, found[1]) };
    };
    target()
      .then(async (to) => {
        const s =
          'local' in to
            ? to.local
            : { id: to.remote.id, assetId: to.remote.asset_id, owner: ownerOfRow(to.remote) };
        const ctx: ActionContext = { principal, requestId: null, ip: request.socket.remoteAddress ?? null };
        await audit
          .recordIntent(ctx, [
            {
              action: 'desktop.session_attached',
              targetType: 'desktop_session',
              targetId: s.id,
              assetId: s.assetId,
            },
          ])
          .catch((error: unknown) => {
            logger.error({ err: error }, 'desktop: auditing an attach failed; refused');
            throw new HubError('internal_error');
          });
        wss.handleUpgrade(request, socket, head, (ws) => {
          events.publish('desktop.session_attached', {
            asset_ids: [s.assetId],
            session_id: s.id,
            asset_id: s.assetId,
            owner: s.owner.owner_id,
          });
          if ('local' in to) void consoles.attachHere(principal, to.local, ws, recheck);
          else void consoles.attachElsewhere(principal, to.remote, ws, recheck);
        });
      })
      .catch((error: unknown) => {
        refuseUpgrade(socket, error instanceof HubError ? error : new HubError('internal_error'));
      });
  }

  return {
    attach,
    close: () => {
      wss.close();
    },
  };
}
