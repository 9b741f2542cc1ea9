/**
 * Agent presence on the assets table: `online` with what the agent's hello says while its channel is open,
 * `offline` with the last-seen time when it closes. Heartbeats move `last_seen_at` at most once a minute per
 * asset, written in batches (one UPDATE per 500 assets per flush), so thousands of agents cost a few queries
 * a minute, not one per heartbeat. Connects are batched too (decision 0089): the hellos that arrive in one
 * turn of the event loop are read with one SELECT and written with one UPDATE for all whose hello changes
 * nothing but the connection (a reconnect storm after a restart), so a storm costs two queries per batch, not
 * two per agent.
 *
 * Every write here is about agents this process holds, so each carries the process's lease fence (decision
 * 0053): once its lease ran out and another process marked its agents offline, nothing it wrote meanwhile
 * lands. When it registers again, `regained` writes the agents the gateway still holds online again.
 *
 * The assets module owns the table: the writes go through its port (`AssetPresenceStore`,
 * modules/assets/asset-presence.service.ts); the rules of when and what are here.
 */
import { isIP } from 'node:net';
import type { Expression, SqlBool } from 'kysely';
import type { Hello } from '@svc/protocol';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../platform/event-bus.js';
import type { Logger } from '../platform/logger.js';
import { newNodeId } from '../platform/cluster/cluster-bus.js';
import { nodeUnregistered } from '../platform/cluster/db-node-registry.js';
import { alwaysHeldLease, type NodeLease } from '../platform/cluster/node-registry.js';
import type { AssetRow } from './asset-reads.js';

const presenceDefaults = {
  /** `last_seen_at` moves at most this often per asset from heartbeats. */
  lastSeenResolutionMs: 60_000,
  batchSize: 500,
  maxIpAddresses: 64,
  hostnameLength: 253,
  /** A departed node's agents are marked offline in at most this many batches (5 million agents). */
  maxNodeGoneBatches: 10_000,
} as const;

/**
 * The writes presence makes on the assets table, supplied by the assets module (its owner). `fence` is this
 * process's lease condition; `node` the holder written or matched.
 */
export interface AssetPresenceStore {
  /** The rows of those of `ids` that exist. */
  findMany(ids: readonly string[]): Promise<AssetRow[]>;
  /** Writes what a connect changes: false when the fence refused it. */
  markOnline(id: string, changes: Partial<AssetRow>, fence: Expression<SqlBool>): Promise<boolean>;
  /** Writes the same connect changes on many: the ids it changed (none when the fence refused). */
  markManyOnline(
    ids: readonly string[],
    changes: Partial<AssetRow>,
    fence: Expression<SqlBool>,
  ): Promise<string[]>;
  /** Moves last_seen_at of those of `ids` online under `node`: how many it changed. */
  touchLastSeen(
    ids: readonly string[],
    iso: string,
    node: string,
    fence: Expression<SqlBool>,
  ): Promise<number>;
  /** Offline, while `node` holds it: its name, or undefined when it did not (or the fence refused). */
  markOffline(
    id: string,
    iso: string,
    node: string,
    fence: Expression<SqlBool>,
  ): Promise<{ name: string } | undefined>;
  markAllOffline(
    ids: readonly string[],
    iso: string,
    node: string,
    fence: Expression<SqlBool>,
  ): Promise<number>;
  /** Up to `limit` ids, after `after` in id order, of the assets online under `node`. */
  onlineHeldBy(node: string, limit: number, after: string): Promise<string[]>;
  /** Those of `ids` still online under the gone `node`, offline now while `unregistered` holds. */
  markGoneOffline(
    ids: readonly string[],
    node: string,
    iso: string,
    unregistered: Expression<SqlBool>,
  ): Promise<{ id: string; name: string }[]>;
  /** Those of `ids` not online, online under `node` again. */
  markOnlineAgain(
    ids: readonly string[],
    node: string,
    iso: string,
    fence: Expression<SqlBool>,
  ): Promise<{ id: string; name: string }[]>;
  /** Agent assets still online under no live node (or none), offline: how many. */
  markOrphansOffline(liveNodes: ReadonlySet<string>): Promise<number>;
}

export interface Presence {
  /**
   * Marks the asset online and records what its hello says about it. Resolves false when the asset no
   * longer exists (deleted while its agent was connecting).
   */
  connected(assetId: string, hello: Hello, remoteAddress: string | null): Promise<boolean>;
  disconnected(assetId: string): Promise<void>;
  /** Notes a sign of life; written by the next flush when the stored one is older than the resolution. */
  seen(assetId: string): void;
  /** Writes the pending last-seen times. */
  flush(): Promise<void>;
  /** Marks these assets offline in one go, without events (hub shutdown), where this process still holds them. */
  allDisconnected(assetIds: readonly string[]): Promise<void>;
  /**
   * Marks offline, with their events, the agents another process held when it went away (registry
   * onNodeGone), in batches. Resolves with how many it changed.
   */
  nodeGone(nodeId: string): Promise<number>;
  /**
   * After this process lost its lease and registered again (decision 0053): writes `connected` (the agents the
   * gateway holds now, with those whose connect is still being written) online again under its node, with
   * `asset.online` for those another process had marked offline, and offline those the database says it holds
   * that are not among them. Resolves with the ids written online again.
   */
  regained(connected: readonly string[]): Promise<string[]>;
}

export interface PresenceDeps {
  /** The assets module's presence writes. */
  store: AssetPresenceStore;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  /** This process's node id (decision 0039): written as each agent's holder; a random one when absent. */
  nodeId?: string;
  /** This process's lease (decision 0053); a cluster of one's, which always holds, when absent. */
  lease?: NodeLease;
  lastSeenResolutionMs?: number;
  /** Assets a nodeGone batch changes at most (tests pass small ones). */
  batchSize?: number;
}

/** A connect waiting for its batch (writeConnects): resolves false when the asset no longer exists. */
interface ConnectRequest {
  assetId: string;
  hello: Hello;
  remoteAddress: string | null;
  resolve: (exists: boolean) => void;
  reject: (error: unknown) => void;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** IP addresses as the agent reports them, kept only when they parse, without loopback, deduplicated. */
function cleanIpAddresses(addresses: readonly string[]): string[] {
  const out = new Set<string>();
  for (const raw of addresses) {
    const address = raw.trim().toLowerCase();
    if (isIP(address) === 0) continue;
    if (address === '::1' || address.startsWith('127.')) continue;
    out.add(address);
    if (out.size >= presenceDefaults.maxIpAddresses) break;
  }
  return [...out];
}

/**
 * The IPv4 subnets the agent reports, as `address/prefix` (decision 0052): from its interfaces, or from
 * addresses written with a prefix by an older agent; null when it says no prefix at all. Wake-on-LAN chooses
 * a relay on one of these, so a relay claiming a wider network never wins the target.
 */
function ipNetworks(hello: Hello): string[] | null {
  const reported =
    hello.interfaces?.map((i) => ({ address: i.address.trim(), prefix: i.prefix })) ??
    hello.ip_addresses.flatMap((text) => {
      const [address = '', prefix] = text.trim().split('/');
      return prefix === undefined ? [] : [{ address, prefix: Number(prefix) }];
    });
  const out = new Set<string>();
  for (const { address, prefix } of reported) {
    if (isIP(address) !== 4 || address.startsWith('127.')) continue;
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > 32) continue;
    out.add(`${address}/${prefix}`);
    if (out.size >= presenceDefaults.maxIpAddresses) break;
  }
  return out.size > 0 ? [...out] : null;
}

const macPattern = /^[0-9a-f]{2}([:-])[0-9a-f]{2}(\1[0-9a-f]{2}){4}$/i;

/** The first MAC address that names a real interface (not all zeros, not broadcast), lowercase with colons. */
function firstRealMac(addresses: readonly string[]): string | null {
  for (const raw of addresses) {
    const mac = raw.trim();
    if (!macPattern.test(mac)) continue;
    const normal = mac.toLowerCase().replace(/-/g, ':');
    if (normal === '00:00:00:00:00:00' || normal === 'ff:ff:ff:ff:ff:ff') continue;
    return normal;
  }
  return null;
}

/** What a hello changes on the asset's descriptive fields (only the ones that differ). */
function describedBy(row: AssetRow, hello: Hello): Partial<AssetRow> {
  const changes: Partial<AssetRow> = {};
  const hostname = hello.hostname.trim().slice(0, presenceDefaults.hostnameLength);
  if (hostname !== '' && hostname !== row.hostname) changes.hostname = hostname;
  if (hello.platform !== row.platform) changes.platform = hello.platform;
  const ips = JSON.stringify(cleanIpAddresses(hello.ip_addresses));
  if (ips !== row.ip_addresses) changes.ip_addresses = ips;
  const networks = ipNetworks(hello);
  const networksText = networks ? JSON.stringify(networks) : null;
  if (networksText !== (row.ip_networks ?? null)) changes.ip_networks = networksText;
  const mac = firstRealMac(hello.mac_addresses);
  if (mac !== null && mac !== row.mac_address) changes.mac_address = mac;
  return changes;
}

export function createPresence(deps: PresenceDeps): Presence {
  const { store, clock, events, logger } = deps;
  const resolution = deps.lastSeenResolutionMs ?? presenceDefaults.lastSeenResolutionMs;
  const nodeId = deps.nodeId ?? newNodeId();
  const batchSize = deps.batchSize ?? presenceDefaults.batchSize;
  const lease = deps.lease ?? alwaysHeldLease();
  /** While `regained` runs: the agents it writes online again, less those that go meanwhile. */
  let regaining: Set<string> | null = null;
  /** Connects being written: the gateway lists an agent only once its connect is written, so these count too. */
  const connecting = new Map<string, Promise<boolean>>();
  /** When last_seen_at was last written, per connected asset (ms). */
  const written = new Map<string, number>();
  const pending = new Set<string>();
  /** Connect and disconnect writes of one asset run in order, so a quick reconnect never ends up offline. */
  const chains = new Map<string, Promise<unknown>>();
  let flushing: Promise<void> | null = null;
  /** Connects whose turn has come, written together at the next turn of the event loop. */
  let connectBatch: ConnectRequest[] = [];

  function serial<T>(assetId: string, task: () => Promise<T>): Promise<T> {
    const previous = chains.get(assetId) ?? Promise.resolve();
    const run = previous.then(task, task);
    chains.set(assetId, run);
    run
      .finally(() => {
        if (chains.get(assetId) === run) chains.delete(assetId);
      })
      .catch(() => undefined);
    return run;
  }

  async function writePending(): Promise<void> {
    const ids = [...pending];
    pending.clear();
    const now = clock.now();
    const iso = now.toISOString();
    for (const chunk of chunks(ids, presenceDefaults.batchSize)) {
      try {
        const changed = await store.touchLastSeen(chunk, iso, nodeId, lease.fence());
        if (changed === 0 && !(await lease.holds())) {
          lease.refused('agent last-seen');
          continue;
        }
        for (const id of chunk) if (written.has(id)) written.set(id, now.getTime());
      } catch (error) {
        logger.error({ err: error, assets: chunk.length }, 'writing agent last-seen times failed');
      }
    }
  }

  /** After a connect is written: what this process remembers, and the events. */
  function connectWritten(request: ConnectRequest, row: AssetRow, at: number): void {
    const { assetId, hello, remoteAddress } = request;
    written.set(assetId, at);
    pending.delete(assetId);
    if (row.status !== 'online')
      events.publish('asset.online', { asset_ids: [assetId], asset_id: assetId, name: row.name });
    events.publish('agent.connected', {
      asset_ids: [assetId],
      asset_id: assetId,
      name: row.name,
      agent_version: hello.agent_version,
      remote_address: remoteAddress,
    });
  }

  /**
   * Writes a batch of connects: one read, one write per group of connects that change the same columns (a
   * reconnect's hello usually describes the machine as it was), one write each for the others.
   */
  async function writeConnects(batch: readonly ConnectRequest[]): Promise<void> {
    const rows = new Map(
      (await store.findMany(batch.map((r) => r.assetId))).map((row) => [row.id, row] as const),
    );
    const now = clock.now();
    const iso = now.toISOString();
    const fence = lease.fence();
    const groups = new Map<string, { changes: Partial<AssetRow>; requests: ConnectRequest[] }>();
    let refused = false;
    for (const request of batch) {
      const row = rows.get(request.assetId);
      if (!row) {
        request.resolve(false);
        continue;
      }
      const connection: Partial<AssetRow> = {
        status: 'online',
        agent_connected_at: iso,
        last_seen_at: iso,
        agent_version: request.hello.agent_version,
        agent_low_power: request.hello.low_power ? 1 : 0,
        agent_node: nodeId,
      };
      const described = describedBy(row, request.hello);
      if (Object.keys(described).length > 0) {
        const isWritten = await store.markOnline(
          request.assetId,
          { ...described, updated_at: iso, ...connection },
          fence,
        );
        if (isWritten) connectWritten(request, row, now.getTime());
        else refused = true;
        request.resolve(true);
        continue;
      }
      const key = `${request.hello.agent_version}\u0000${String(connection.agent_low_power)}`;
      const group = groups.get(key) ?? { changes: connection, requests: [] };
      group.requests.push(request);
      groups.set(key, group);
    }
    for (const { changes, requests } of groups.values()) {
      for (const part of chunks(requests, presenceDefaults.batchSize)) {
        const changed = new Set(
          await store.markManyOnline(
            part.map((r) => r.assetId),
            changes,
            fence,
          ),
        );
        for (const request of part) {
          const row = rows.get(request.assetId);
          if (row && changed.has(request.assetId)) connectWritten(request, row, now.getTime());
          else refused = true;
          request.resolve(true);
        }
      }
    }
    // The lease ran out: the agents stay connected, and are written online when this process registers again.
    if (refused) lease.refused('agent online');
  }

  function flushConnects(): void {
    const batch = connectBatch;
    connectBatch = [];
    writeConnects(batch).catch((error: unknown) => {
      for (const request of batch) request.reject(error);
    });
  }

  const presence: Presence = {
    connected(assetId, hello, remoteAddress) {
      // Connected while `regained` runs: held here, so its second pass does not write it offline.
      regaining?.add(assetId);
      const connect = serial(
        assetId,
        () =>
          new Promise<boolean>((resolve, reject) => {
            if (connectBatch.length === 0) setImmediate(flushConnects);
            connectBatch.push({ assetId, hello, remoteAddress, resolve, reject });
          }),
      );
      connecting.set(assetId, connect);
      const settled = () => {
        if (connecting.get(assetId) === connect) connecting.delete(assetId);
      };
      connect.then(settled, settled);
      return connect;
    },

    disconnected(assetId) {
      regaining?.delete(assetId);
      connecting.delete(assetId);
      return serial(assetId, async () => {
        written.delete(assetId);
        pending.delete(assetId);
        // Only while this process is its holder: an agent that reconnected to another one meanwhile stays online.
        const row = await store.markOffline(assetId, clock.now().toISOString(), nodeId, lease.fence());
        if (!row) {
          if (!(await lease.holds())) lease.refused('agent offline');
          return;
        }
        events.publish('agent.disconnected', { asset_ids: [assetId], asset_id: assetId, name: row.name });
        events.publish('asset.offline', { asset_ids: [assetId], asset_id: assetId, name: row.name });
      });
    },

    seen(assetId) {
      const last = written.get(assetId);
      if (last === undefined) return;
      if (clock.now().getTime() - last >= resolution) pending.add(assetId);
    },

    async flush() {
      while (flushing) await flushing;
      if (pending.size === 0) return;
      flushing = writePending().finally(() => {
        flushing = null;
      });
      await flushing;
    },

    async allDisconnected(assetIds) {
      // A connect still being written must not land after this and leave its asset online.
      await Promise.allSettled([...chains.values()]);
      const iso = clock.now().toISOString();
      for (const id of assetIds) {
        written.delete(id);
        pending.delete(id);
        regaining?.delete(id);
      }
      for (const chunk of chunks(assetIds, presenceDefaults.batchSize)) {
        const changed = await store.markAllOffline(chunk, iso, nodeId, lease.fence());
        if (changed === 0 && !(await lease.holds())) lease.refused('agents offline');
      }
    },

    async nodeGone(gone) {
      if (gone === nodeId) return 0;
      let changed = 0;
      // Bounded: each batch takes agents off the node's list, so the count of batches is the fleet's size.
      for (let batch = 0; batch < presenceDefaults.maxNodeGoneBatches; batch++) {
        const rows = await store.onlineHeldBy(gone, batchSize, '');
        if (rows.length === 0) break;
        const iso = clock.now().toISOString();
        // A node that registered again meanwhile (it had only stalled) holds its agents again: left alone.
        const marked = await store.markGoneOffline(rows, gone, iso, nodeUnregistered(gone));
        changed += marked.length;
        for (const row of marked) {
          events.publish('agent.disconnected', { asset_ids: [row.id], asset_id: row.id, name: row.name });
          events.publish('asset.offline', { asset_ids: [row.id], asset_id: row.id, name: row.name });
        }
        if (rows.length < batchSize) break;
      }
      return changed;
    },

    async regained(connected) {
      const held = new Set([...connected, ...connecting.keys()]);
      regaining = held;
      try {
        return await writeRegained(held);
      } finally {
        regaining = null;
      }
    },
  };

  async function writeRegained(held: Set<string>): Promise<string[]> {
    const iso = clock.now().toISOString();
    const again: string[] = [];
    for (const chunk of chunks([...held], presenceDefaults.batchSize)) {
      // Not an agent another live process holds now (it reconnected there while this one stalled).
      const marked = await store.markOnlineAgain(chunk, nodeId, iso, lease.fence());
      const now = clock.now().getTime();
      for (const row of marked) {
        written.set(row.id, now);
        // Went while this batch was written: its offline write may have landed first.
        if (!held.has(row.id)) {
          void presence.disconnected(row.id).catch(() => undefined);
          continue;
        }
        again.push(row.id);
        events.publish('asset.online', { asset_ids: [row.id], asset_id: row.id, name: row.name });
      }
    }
    // What the database says this node holds and is not connected here (an offline write refused meanwhile).
    let after = '';
    for (let batch = 0; batch < presenceDefaults.maxNodeGoneBatches; batch++) {
      const rows = await store.onlineHeldBy(nodeId, batchSize, after);
      const stale = rows.filter((id) => !held.has(id));
      await Promise.all(stale.map((id) => presence.disconnected(id)));
      after = rows.at(-1) ?? after;
      if (rows.length < batchSize) break;
    }
    return again;
  }
  return presence;
}
