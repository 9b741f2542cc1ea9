/**
 * Query keys of one asset: its record, and under it what its agent answers (processes, files…). All start
 * with `['assets']`, so whatever changes assets refreshes them, and deleting the asset drops them together.
 */
export function assetKey(id: string) {
  return ['assets', 'detail', id] as const;
}

export function assetPartKey(id: string, part: string, ...rest: readonly unknown[]) {
  return ['assets', 'detail', id, part, ...rest] as const;
}
