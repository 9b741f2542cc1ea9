/** TrueNAS records → the hub's pools and datasets. Pure. */
import type { NasDataset, NasPool } from '@svc/protocol';
import type { TruenasDataset, TruenasPool } from './nas.upstream.js';

function bytes(value: number | null | undefined): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

/** A size property's `parsed` value (bytes), never `value` (human text) or a sum over children. */
function parsedBytes(property: { parsed?: unknown } | null | undefined): number | null {
  const parsed = property?.parsed;
  if (typeof parsed === 'number') return bytes(parsed);
  // Some releases send large integers as text in `parsed` for volumes.
  if (typeof parsed === 'string' && /^\d+$/.test(parsed)) return bytes(Number(parsed));
  return null;
}

export function toNasPool(pool: TruenasPool): NasPool {
  const size = bytes(pool.size);
  const allocated = bytes(pool.allocated);
  const scan = pool.scan;
  return {
    id: String(pool.id),
    name: pool.name,
    status: pool.status,
    healthy: pool.healthy,
    status_detail: pool.status_detail ?? null,
    size_bytes: size,
    allocated_bytes: allocated,
    free_bytes: bytes(pool.free),
    used_percent: size && allocated !== null ? Math.round((allocated / size) * 1000) / 10 : null,
    last_scan:
      scan?.function && scan.state
        ? { function: scan.function, state: scan.state, errors: scan.errors ?? null }
        : null,
  };
}

function toNasDataset(dataset: TruenasDataset): NasDataset {
  return {
    id: dataset.id,
    pool: dataset.pool,
    type: dataset.type === 'VOLUME' ? 'volume' : 'filesystem',
    used_bytes: parsedBytes(dataset.used),
    available_bytes: parsedBytes(dataset.available),
    encrypted: dataset.encrypted ?? false,
    locked: dataset.locked ?? false,
    mountpoint: dataset.mountpoint ?? null,
  };
}

/**
 * Each dataset once, sorted by path. `pool.dataset.query` is flat by default (every dataset at top level)
 * and each may also carry its `children`: those are not walked, so nothing is counted twice.
 */
export function toNasDatasets(datasets: readonly TruenasDataset[]): NasDataset[] {
  const byId = new Map<string, NasDataset>();
  for (const dataset of datasets) if (!byId.has(dataset.id)) byId.set(dataset.id, toNasDataset(dataset));
  return [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
}

export function toNasPools(pools: readonly TruenasPool[]): NasPool[] {
  return pools.map(toNasPool).sort((a, b) => a.name.localeCompare(b.name));
}

/** Whether the release speaks JSON-RPC: `/api/versions` lists at least one version (25.04 and later). */
export function hasJsonRpc(versions: readonly string[]): boolean {
  return versions.some((v) => /^v\d+/.test(v));
}
