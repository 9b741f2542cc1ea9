/** Query keys of groups: `['groups', 'list', …]` for lists (the assets filter uses one), `['groups', 'detail', id]`. */
export const groupListKey = ['groups', 'list', 'all'] as const;

export function groupKey(id: string) {
  return ['groups', 'detail', id] as const;
}
