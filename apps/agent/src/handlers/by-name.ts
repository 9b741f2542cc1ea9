/**
 * The order of the lists the agent sorts by name (services, network interfaces, packages): by UTF-16 code
 * unit, not `localeCompare`, whose first call loads ICU's collation data: 2–3 MB of the agent's resident
 * memory, kept for its lifetime, to sort names that are ASCII (docs/decisions/0085-agent-footprint.md).
 */
export function byName(a: { name: string }, b: { name: string }): number {
  if (a.name < b.name) return -1;
  return a.name > b.name ? 1 : 0;
}
