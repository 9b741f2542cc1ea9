/**
 * The agent channel's HTTP upgrade (gateway.ts): only on the channel path, only while the hub takes new agents,
 * only in its turn (gateway-admission.ts: a bounded queue, 503 with Retry-After past it), and only with a
 * credential channel-auth.ts accepts; anything else is refused with the status that says why.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';
import { agentChannelPath } from '@svc/protocol';
import { refuseUpgrade } from '../http/upgrade.js';
import { HubError } from '../platform/hub-error.js';
import type { Logger } from '../platform/logger.js';
import type { Admission, AdmissionRelease } from './gateway-admission.js';
import type { ConnectionTable } from './gateway-connection.js';

interface UpgradeDeps {
  logger: Logger;
  wss: WebSocketServer;
  table: ConnectionTable;
  admission: Admission;
  authenticate: (req: IncomingMessage) => Promise<{ assetId: string; remoteAddress?: string | null } | null>;
  /** `release` gives the admission slot back: at the welcome, or when the connection ends before it. */
  onConnection: (
    ws: WebSocket,
    assetId: string,
    remoteAddress: string | null,
    release: AdmissionRelease,
  ) => void;
}

/** A refusal by admission: `retryAfterS` is the turn it booked for this agent (gateway-admission.ts). */
function hubBusy(retryAfterS: number): HubError {
  return new HubError(
    'unavailable',
    'The hub is taking agents back in turn; retry after the time in Retry-After.',
    {
      headers: { 'Retry-After': String(retryAfterS) },
    },
  );
}

type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export function createUpgradeHandler(deps: UpgradeDeps): UpgradeHandler {
  const { logger, wss, table } = deps;
  return (req, socket, head) => {
    const onSocketError = (error: Error) => {
      logger.debug({ err: error }, 'agent upgrade socket error');
    };
    socket.on('error', onSocketError);
    const path = (req.url ?? '').split('?')[0];
    if (path !== agentChannelPath) {
      refuseUpgrade(socket, new HubError('not_found', `No WebSocket endpoint at ${path ?? ''}.`));
      return;
    }
    if (table.closed || table.moving) {
      refuseUpgrade(socket, new HubError('unavailable', 'The hub is shutting down.'));
      return;
    }
    deps.admission
      .enter(() => socket.destroyed)
      .then(
        (outcome) => {
          if (!('release' in outcome)) {
            refuseUpgrade(socket, hubBusy(outcome.retryAfterS));
            return;
          }
          const { release } = outcome;
          // However the upgrade ends (refused, aborted by ws, closed before the welcome), the slot comes back.
          socket.once('close', release);
          if (socket.destroyed) {
            release();
            return;
          }
          authenticateAndUpgrade(req, socket, head, release, onSocketError);
        },
        (error: unknown) => {
          logger.error({ err: error }, 'agent channel admission failed');
          refuseUpgrade(socket, new HubError('internal_error'));
        },
      );
  };

  function authenticateAndUpgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    release: AdmissionRelease,
    onSocketError: (error: Error) => void,
  ): void {
    deps.authenticate(req).then(
      (peer) => {
        if (!peer) {
          refuseUpgrade(
            socket,
            new HubError('unauthorized', 'The agent credential is not valid or was revoked.'),
          );
          return;
        }
        if (table.closed || table.moving) {
          refuseUpgrade(socket, new HubError('unavailable', 'The hub is shutting down.'));
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          socket.off('error', onSocketError);
          deps.onConnection(
            ws,
            peer.assetId,
            peer.remoteAddress ?? req.socket.remoteAddress ?? null,
            release,
          );
        });
      },
      (error: unknown) => {
        if (error instanceof HubError) {
          refuseUpgrade(socket, error);
          return;
        }
        logger.error({ err: error }, 'agent channel authentication failed');
        refuseUpgrade(socket, new HubError('internal_error'));
      },
    );
  }
}
