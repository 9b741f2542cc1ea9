/**
 * WebSocket upgrades, dispatched by contract: the request's path finds its route contract, and the same
 * authentication (authenticate.ts) and authorization (authorize.ts) as for the HTTP route run before any
 * handshake. Refusals are answered on the raw socket in the error envelope, with the status the HTTP route
 * would give. Node hands upgrades to the server's 'upgrade' event, not to Fastify's routes.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RouteContract, RouteName } from '@svc/protocol';
import { HubError } from '../platform/hub-error.js';
import type { Principal } from '../access/principal.js';
import type { Authenticator } from './authenticate.js';
import { authorize } from './authorize.js';
import { rawErrorResponse } from './envelope.js';
import { toHubError } from './error-handler.js';
import { createRouteMatcher, decodeParams } from './route-match.js';

/**
 * The contract's checks run again for a principal that changed while its connection lives (a key narrowed,
 * decision 0049): the refusal the upgrade would get now, or null when it would still be admitted.
 */
export type UpgradeRecheck = (principal: Principal) => HubError | null;

/**
 * A module's WebSocket endpoint: runs only for a caller the contract admits; completes the handshake itself.
 * `recheck` is what its connection asks again when its principal changes.
 */
type UpgradeHandler = (
  principal: Principal,
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  recheck: UpgradeRecheck,
) => void;

/** A `public` upgrade that checks its own credential (the agent channel). */
type PublicUpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

export type UpgradeHandlers = Partial<Record<RouteName, UpgradeHandler>>;
export type PublicUpgradeHandlers = Partial<Record<RouteName, PublicUpgradeHandler>>;

export interface UpgradeRouterDeps {
  routes: readonly RouteContract[];
  authenticator: Authenticator;
  handlers: UpgradeHandlers;
  publicHandlers: PublicUpgradeHandlers;
  onError(error: unknown): void;
}

export type UpgradeRouter = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/**
 * The refusal before any handshake, for every WebSocket endpoint and the agent channel: the envelope, then the
 * connection closes. Closes, not only ends: the server keeps an upgrade's socket half-open, so a client that
 * never closes its side would otherwise hold it for as long as it likes.
 */
export function refuseUpgrade(socket: Duplex, error: HubError): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const encrypted = (socket as Duplex & { encrypted?: boolean }).encrypted === true;
  socket.once('finish', () => socket.destroy());
  socket.end(rawErrorResponse(error, { encrypted }));
}

export function createUpgradeRouter(deps: UpgradeRouterDeps): UpgradeRouter {
  // Upgrades are GET by RFC 6455; only GET contracts can be WebSocket endpoints.
  const matcher = createRouteMatcher(deps.routes.filter((r) => r.method === 'GET'));
  const handlers = deps.handlers as Partial<Record<string, UpgradeHandler>>;
  const publicHandlers = deps.publicHandlers as Partial<Record<string, PublicUpgradeHandler>>;

  async function admit(
    request: IncomingMessage,
    path: string,
  ): Promise<{ principal: Principal; contract: RouteContract; params: Record<string, string> }> {
    if (request.method !== 'GET') {
      throw new HubError('method_not_allowed', 'A WebSocket upgrade is a GET request.');
    }
    const found = matcher.find('GET', path);
    if (!found) {
      // Authentication before existence, as for HTTP: an anonymous caller cannot map the API by probing.
      if (path.startsWith('/api/v2/')) await deps.authenticator.authenticate(request);
      throw new HubError('not_found', `No WebSocket endpoint ${path}.`);
    }
    if (found.contract.auth === 'public') {
      // A public contract with an upgrade handler never gets here; any other public route has no WebSocket.
      throw new HubError('not_found', `${path} is not a WebSocket endpoint; send a plain request.`);
    }
    const principal = await deps.authenticator.authenticate(request);
    const params = decodeParams(found.rawParams);
    if (!params) throw new HubError('validation', 'The request URL is not valid: bad percent-encoding.');
    authorize(found.contract, principal, params);
    if (found.contract.upgrade !== true) {
      throw new HubError('not_found', `${path} is not a WebSocket endpoint; send a plain request.`);
    }
    return { principal, contract: found.contract, params };
  }

  return (request, socket, head) => {
    const path = (request.url ?? '').split('?')[0] ?? '';
    const found = matcher.find('GET', path);
    const publicHandler = found?.contract.auth === 'public' ? publicHandlers[found.contract.name] : undefined;
    if (publicHandler) {
      publicHandler(request, socket, head);
      return;
    }
    // A client that goes away while we authenticate must not raise an unhandled 'error'.
    const ignore = () => socket.destroy();
    socket.on('error', ignore);
    admit(request, path)
      .then(({ principal, contract, params }) => {
        const handler = handlers[contract.name];
        if (!handler) {
          const where = contract.plannedIn ? ` It is planned with ${contract.plannedIn}.` : '';
          throw new HubError('not_implemented', `GET ${contract.path} is not built yet.${where}`);
        }
        socket.off('error', ignore);
        const recheck: UpgradeRecheck = (next) => {
          try {
            authorize(contract, next, params);
            return null;
          } catch (error) {
            return error instanceof HubError ? error : new HubError('forbidden');
          }
        };
        handler(principal, request, socket, head, recheck);
      })
      .catch((error: unknown) => {
        const known = toHubError(error);
        if (!known) deps.onError(error);
        refuseUpgrade(socket, known ?? new HubError('internal_error'));
      });
  };
}

/** A WebSocket close reason within the 123 bytes a close frame holds, cut on a character with `…`. */
export function closeFrameReason(text: string): string {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length <= 123
    ? text
    : bytes
        .subarray(0, 120)
        .toString('utf8')
        .replace(/\uFFFD$/, '') + '…';
}

/**
 * The close reason of a connection whose principal no longer passes its checks (close code 4403): what it
 * lacks, within the 123 bytes a close frame holds.
 */
export function withdrawnReason(why: string): string {
  return closeFrameReason(`access withdrawn: ${why}`);
}
