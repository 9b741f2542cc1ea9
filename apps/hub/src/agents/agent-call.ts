/**
 * What every operation that runs through an agent shares: load the asset the caller may see, refuse an
 * offline one with the message the interface fixes, send the request, and turn the gateway's failures into
 * the hub's error catalog. Services (exec, files, system, power) call through here; routes never do.
 */
import type {
  AgentErrorCode,
  AgentRequestPayload,
  AgentRequestResult,
  AgentRequestType,
  ErrorCode,
} from '@svc/protocol';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  ClusterUnavailableCallError,
  type AgentGateway,
  type AgentRequestOptions,
} from './agent-gateway.js';
import { HubError } from '../platform/hub-error.js';
import { canSeeAsset, isAdmin, type Principal } from '../access/principal.js';
import type { AssetReads, AssetRow } from './asset-reads.js';

/** How each agent error code reads in the hub's catalog. */
const agentCodeMap: Record<AgentErrorCode, ErrorCode> = {
  not_found: 'not_found',
  permission_denied: 'forbidden',
  forbidden_path: 'forbidden',
  invalid_path: 'validation',
  invalid_argument: 'validation',
  too_large: 'payload_too_large',
  exists: 'conflict',
  is_directory: 'validation',
  not_directory: 'validation',
  unsupported: 'conflict',
  timeout: 'unavailable',
  failed: 'upstream_error',
};

/** What a host lacks when its agent answers `unsupported` without saying so. */
function unsupportedDefault(type: AgentRequestType): string {
  if (type.startsWith('services.')) return 'this host has no systemd';
  if (type === 'system.packages') return 'this host has no supported package manager (dpkg, rpm, apk)';
  if (type === 'system.logs') return 'this host has no journald for this query';
  return `this host does not support ${type}`;
}

/**
 * Operations that can read or run anything on a host: on the hub's own host they need the admin role
 * (ARCHITECTURE.md security rule 10), since that host holds the hub's database, keys and process. Container
 * logs and start/stop/restart count too (decision 0020): the hub may itself run in a container there, and
 * its logs or its restart are as sensitive as the journal or a process signal.
 */
function readsOrRunsAnything(type: AgentRequestType): boolean {
  return (
    type === 'exec.run' ||
    type.startsWith('files.') ||
    type.startsWith('processes.') ||
    type === 'system.logs' ||
    type === 'containers.logs' ||
    type === 'containers.action' ||
    // Package updates install and remove software as root, and may reboot (decision 0081).
    type.startsWith('updates.') ||
    // A check from there reaches the hub's own loopback services, its database among them (decision 0084).
    type === 'check.run'
  );
}

/** Refuses a non-admin an operation that can read or run anything on the hub's own host. */
export function requireHubHostAccess(
  principal: Principal,
  row: Pick<AssetRow, 'id' | 'name' | 'hub_host'>,
  type: AgentRequestType,
): void {
  if (row.hub_host === 1 && readsOrRunsAnything(type) && !isAdmin(principal)) {
    throw new HubError(
      'admin_required',
      `asset ${row.name} (${row.id}) is the hub's own host: ${type} there needs the admin role`,
    );
  }
}

export function assetNotFound(id: string): HubError {
  return new HubError('not_found', `no asset ${id}`);
}

function lastSeenText(row: Pick<AssetRow, 'last_seen_at'>): string {
  if (!row.last_seen_at) return 'never';
  const ms = Date.parse(row.last_seen_at);
  return Number.isNaN(ms) ? row.last_seen_at : new Date(ms).toISOString();
}

/** The interface's offline message: `asset <name> (<id>) is offline (last seen: <ISO 8601>)`. */
export function offlineMessage(row: Pick<AssetRow, 'id' | 'name' | 'last_seen_at'>): string {
  return `asset ${row.name} (${row.id}) is offline (last seen: ${lastSeenText(row)})`;
}

export function assetOffline(row: Pick<AssetRow, 'id' | 'name' | 'last_seen_at'>): HubError {
  return new HubError('asset_offline', offlineMessage(row));
}

/**
 * Seconds a client waits before retrying a call the cluster bus could not carry. NATS clients (the hub's
 * included) try to reconnect every 2 s with up to 1 s of jitter: 5 s covers two attempts, so a restart of NATS
 * is usually over by then, while a client polling a longer outage sends one request per 5 s, not a flood.
 */
export const clusterRetryAfterSeconds = 5;

/** The interface's message for a call that needs another hub process while the cluster bus is down. */
export function clusterUnavailable(row: Pick<AssetRow, 'id' | 'name'>): HubError {
  return new HubError(
    'cluster_unavailable',
    `asset ${row.name} (${row.id}) is held by another hub process, and the hub processes cannot reach each other right now (the cluster bus is down); retry in ${String(clusterRetryAfterSeconds)} s`,
    { headers: { 'Retry-After': String(clusterRetryAfterSeconds) } },
  );
}

/** Maps a gateway failure to the hub's catalog; anything else is returned unchanged (a bug: 500). */
export function agentFailure(
  error: unknown,
  row: Pick<AssetRow, 'id' | 'name' | 'last_seen_at'>,
  type: AgentRequestType,
): unknown {
  if (error instanceof AgentOfflineError) return assetOffline(row);
  if (error instanceof ClusterUnavailableCallError) return clusterUnavailable(row);
  if (error instanceof AgentTimeoutError) {
    return new HubError('unavailable', `asset ${row.name} (${row.id}) did not answer ${type} in time`);
  }
  if (error instanceof AgentReplyError) {
    const code = agentCodeMap[error.code];
    const said = error.message.trim();
    const message =
      error.code === 'unsupported'
        ? `asset ${row.name} (${row.id}): ${said || unsupportedDefault(type)}`
        : `asset ${row.name} (${row.id}): ${said || `${type} failed (${error.code})`}`;
    return new HubError(code, message);
  }
  return error;
}

export interface AgentCaller {
  readonly gateway: AgentGateway;
  /** The assets module's reads (the operations' lookups of many assets, their names). */
  readonly assets: AssetReads;
  /**
   * The asset row, if the principal may see it (otherwise the same 404 as an unknown id) and may run `type`
   * there (403 admin_required for a non-admin on the hub's own host).
   */
  loadAsset(principal: Principal, id: string, type: AgentRequestType): Promise<AssetRow>;
  isOnline(assetId: string): boolean;
  /**
   * Why a call cannot go to an asset this process does not see connected: 503 cluster_unavailable while the
   * cluster bus is down and the database says another process holds its agent (that process's connects no
   * longer reach this one), else 409 asset_offline.
   */
  notConnected(row: Pick<AssetRow, 'id' | 'name' | 'last_seen_at' | 'status'>): HubError;
  /** Throws notConnected(row) when the asset's agent holds no connection. */
  requireOnline(row: AssetRow): void;
  /** Sends a request to a loaded asset's agent; failures arrive as HubErrors of the catalog. */
  call<T extends AgentRequestType>(
    row: AssetRow,
    type: T,
    payload: AgentRequestPayload<T>,
    options?: AgentRequestOptions,
  ): Promise<AgentRequestResult<T>>;
}

export function createAgentCaller(deps: {
  /** Asset reads, from the assets module (the table's owner). */
  assets: AssetReads;
  gateway: AgentGateway;
  /** True while this process is one of several and its cluster bus is down (absent: a cluster of one). */
  clusterDown?: () => boolean;
}): AgentCaller {
  const { assets, gateway } = deps;
  const clusterDown = deps.clusterDown ?? (() => false);
  const notConnected: AgentCaller['notConnected'] = (row) =>
    clusterDown() && row.status === 'online' ? clusterUnavailable(row) : assetOffline(row);
  return {
    gateway,
    assets,
    async loadAsset(principal, id, type) {
      if (!canSeeAsset(principal, id)) throw assetNotFound(id);
      const row = await assets.row(id);
      if (!row) throw assetNotFound(id);
      requireHubHostAccess(principal, row, type);
      return row;
    },
    isOnline: (assetId) => gateway.isConnected(assetId),
    notConnected,
    requireOnline(row) {
      if (!gateway.isConnected(row.id)) throw notConnected(row);
    },
    async call(row, type, payload, options) {
      if (!gateway.isConnected(row.id)) throw notConnected(row);
      try {
        return await gateway.request(row.id, type, payload, options);
      } catch (error) {
        throw agentFailure(error, row, type);
      }
    },
  };
}
