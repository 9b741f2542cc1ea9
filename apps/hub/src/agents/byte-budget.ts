/**
 * What an agent may send the hub, in bytes. Replies to the hub's own requests carry what was asked for (an
 * exec's output, a file's contents: MiBs), so each request pays for its own reply up to the size it allows.
 * Everything else — hello, heartbeats, metrics, results nobody waits for, padding — draws on the agent's
 * unsolicited budget, a token bucket per asset that survives reconnects, so closing and reopening the
 * connection does not refill it.
 */
import { agentLimits, type AgentRequestPayload, type AgentRequestType } from '@svc/protocol';

const byteBudgetDefaults = {
  /** Unsolicited bytes per second an agent may send on average; a real agent sends tens. */
  unsolicitedBytesPerSecond: 64 * 1024,
  /**
   * Unsolicited bytes at once: an agent back from an outage sends its metrics backlog (2,000 samples, about
   * 0.7 MB) and its hello right after connecting.
   */
  unsolicitedBurstBytes: 2 * 1024 * 1024,
} as const;

/** Envelope, ids, paths and an error message, JSON-escaped: a reply to any request fits in this much besides its data. */
const replyOverheadBytes = 64 * 1024;
/** JSON escapes a control character in six bytes (`\u0000`). */
const jsonEscapeFactor = 6;

const bounded = (bytes: number) => Math.min(agentLimits.frameBytes, bytes + replyOverheadBytes);
const wholeFrame = () => agentLimits.frameBytes;
const small = () => replyOverheadBytes;

/** The largest reply each request may draw, from what the request itself allows. */
const replyBytes: { [T in AgentRequestType]: (payload: AgentRequestPayload<T>) => number } = {
  'exec.run': (p) => bounded(2 * p.max_output_bytes * jsonEscapeFactor),
  'files.read': (p) => bounded(Math.ceil(p.max_bytes / 3) * 4),
  'files.list': wholeFrame,
  'check.run': small,
  'files.write': small,
  'files.mkdir': small,
  'files.rename': small,
  'files.copy': small,
  'files.delete': small,
  'processes.list': wholeFrame,
  'processes.kill': small,
  'services.list': wholeFrame,
  'services.action': small,
  'system.network': wholeFrame,
  'system.disks': wholeFrame,
  'system.packages': wholeFrame,
  'system.cron': wholeFrame,
  'system.users': wholeFrame,
  'system.logs': wholeFrame,
  'containers.list': wholeFrame,
  'containers.action': small,
  'containers.logs': wholeFrame,
  'containers.images': wholeFrame,
  'containers.volumes': wholeFrame,
  'discovery.scan': wholeFrame,
  'updates.list': wholeFrame,
  'updates.simulate': wholeFrame,
  'updates.apply': wholeFrame,
  'power.reboot': small,
  'power.shutdown': small,
  'wol.relay': small,
  'credential.rotate': small,
};

export function replyAllowance<T extends AgentRequestType>(type: T, payload: AgentRequestPayload<T>): number {
  return (replyBytes[type] as (p: AgentRequestPayload<T>) => number)(payload);
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export interface ByteBudgets {
  /** Bytes the asset may send unsolicited right now (negative after an overdraft). */
  available(assetId: string, now: number): number;
  /** Takes bytes from the asset's budget and returns what is left; below zero means over budget. */
  spend(assetId: string, bytes: number, now: number): number;
  /** Forgets full buckets of assets for which `keep` says no: they hold no information. */
  sweep(now: number, keep: (assetId: string) => boolean): void;
  readonly size: number;
}

export function createByteBudgets(
  options: { bytesPerSecond?: number; burstBytes?: number } = {},
): ByteBudgets {
  const perMs = (options.bytesPerSecond ?? byteBudgetDefaults.unsolicitedBytesPerSecond) / 1000;
  const burst = options.burstBytes ?? byteBudgetDefaults.unsolicitedBurstBytes;
  const buckets = new Map<string, Bucket>();

  function refill(assetId: string, now: number): Bucket {
    const bucket = buckets.get(assetId);
    if (!bucket) {
      const fresh = { tokens: burst, updatedAt: now };
      buckets.set(assetId, fresh);
      return fresh;
    }
    bucket.tokens = Math.min(burst, bucket.tokens + Math.max(0, now - bucket.updatedAt) * perMs);
    bucket.updatedAt = now;
    return bucket;
  }

  return {
    available(assetId, now) {
      return refill(assetId, now).tokens;
    },
    spend(assetId, bytes, now) {
      const bucket = refill(assetId, now);
      bucket.tokens -= bytes;
      return bucket.tokens;
    },
    sweep(now, keep) {
      for (const [assetId, bucket] of buckets) {
        if (keep(assetId)) continue;
        if (bucket.tokens + Math.max(0, now - bucket.updatedAt) * perMs >= burst) buckets.delete(assetId);
      }
    },
    get size() {
      return buckets.size;
    },
  };
}
