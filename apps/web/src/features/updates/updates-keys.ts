/**
 * TanStack Query keys of the Updates pages, all under `['updates']`; the event feed (live-events.ts) marks
 * `fleet` and one `asset` stale on `updates.changed`, `runs` and one `run` on an update run's progress.
 */
import type { UpdatesFleetQuery, UpdateRunsQuery } from '@svc/protocol';

export const updatesKey = ['updates'] as const;
export const fleetKey = (query: UpdatesFleetQuery) => ['updates', 'fleet', query] as const;
export const assetUpdatesKey = (assetId: string) => ['updates', 'asset', assetId] as const;
export const runsKey = (query: UpdateRunsQuery, page: number) => ['updates', 'runs', query, page] as const;
export const runKey = (runId: string) => ['updates', 'run', runId] as const;
export const resultKey = (runId: string, assetId: string) => ['updates', 'result', runId, assetId] as const;
