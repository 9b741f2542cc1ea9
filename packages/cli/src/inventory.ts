/**
 * The hub's assets and groups as an Ansible inventory (the script protocol's JSON, decision 0076): a host per
 * asset, a group per hub group, the host variables in `_meta` so Ansible never calls `--host` per host.
 *
 * Names are made safe for Ansible's patterns and stable: a host or group keeps the name made from its hub name
 * while that name is its alone; names that two things share (or that could pass for a generated one) get the
 * thing's id appended, so a play never reaches a machine by a name that used to mean another.
 */
import { isIP } from 'node:net';
import type { Asset, Group } from '@svc/protocol';

interface InventoryGroup {
  hosts: string[];
  vars: Record<string, unknown>;
  children: string[];
}

export interface HostVars {
  /** Left out when the asset has no address: Ansible then connects to the host's name. */
  ansible_host?: string;
  svc_id: string;
  svc_name: string;
  svc_hostname: string | null;
  svc_platform: Asset['platform'];
  svc_status: Asset['status'];
  svc_tags: string[];
  svc_ip_addresses: string[];
}

export interface Inventory {
  groups: Map<string, InventoryGroup>;
  hostvars: Map<string, HostVars>;
}

/** Groups Ansible makes itself: a hub group never takes these names. */
const reservedGroupNames = new Set(['all', 'ungrouped']);

/** Letters with their accents taken off (`Küche` → `Kuche`), so a name keeps what it can of its text. */
function plainLetters(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '');
}

/**
 * A host name Ansible's patterns read as one name: lowercase ASCII letters, digits, `.`, `_` and `-`, with
 * every other run of characters (spaces, `:`, `,`, `*`, `[`, `!`, `&`, `~`, letters outside ASCII) one `-`,
 * and no `-` or `.` at either end. Empty when nothing of the name is left.
 */
export function safeHostName(name: string): string {
  return plainLetters(name)
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
}

/**
 * A group name Ansible takes without a warning (a Python identifier of ASCII letters, digits and `_`, not
 * starting with a digit): lowercase, every other run of characters one `_`, none at either end, `_` before a
 * leading digit. Empty when nothing of the name is left.
 */
export function safeGroupName(name: string): string {
  const plain = plainLetters(name)
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[0-9]/.test(plain) ? `_${plain}` : plain;
}

/** Whether a safe name ends like a generated one (`…_ast_<id>`): such a name is always given its own id too. */
function looksGenerated(name: string, idPrefix: string): boolean {
  return new RegExp(`(?:^|_)${idPrefix}_[0-9a-z]{26}$`).test(name);
}

/**
 * One unique name per item, by id: its safe name when no other item has it (nor could take it), else that
 * name with `_<id>` appended; the id alone when nothing of the name is safe. Ids are unique, so are these.
 */
function uniqueNames(
  items: readonly { id: string; name: string }[],
  safe: (name: string) => string,
  idPrefix: string,
  reserved: ReadonlySet<string> = new Set(),
): Map<string, string> {
  const bases = new Map(items.map((item) => [item.id, safe(item.name)]));
  const uses = new Map<string, number>();
  for (const base of bases.values()) uses.set(base, (uses.get(base) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const [id, base] of bases) {
    if (base === '') names.set(id, id);
    else if ((uses.get(base) ?? 0) > 1 || reserved.has(base) || looksGenerated(base, idPrefix))
      names.set(id, `${base}_${id}`);
    else names.set(id, base);
  }
  return names;
}

const isLinkLocalV4 = (address: string) => address.startsWith('169.254.');
const isLinkLocalV6 = (address: string) => /^fe[89ab]/i.test(address);

/**
 * Where Ansible connects: the asset's first IPv4 address that is not link-local, else its first IPv6 address
 * that is not link-local (a link-local one needs a zone Ansible is not given), else its hostname; null when
 * it has none of them.
 */
export function connectAddress(asset: Pick<Asset, 'ip_addresses' | 'hostname'>): string | null {
  const v4 = asset.ip_addresses.find((a) => isIP(a) === 4 && !isLinkLocalV4(a));
  if (v4) return v4;
  const v6 = asset.ip_addresses.find((a) => isIP(a) === 6 && !isLinkLocalV6(a));
  if (v6) return v6;
  return asset.hostname ?? null;
}

function hostVars(asset: Asset): HostVars {
  const address = connectAddress(asset);
  return {
    ...(address ? { ansible_host: address } : {}),
    svc_id: asset.id,
    svc_name: asset.name,
    svc_hostname: asset.hostname,
    svc_platform: asset.platform,
    svc_status: asset.status,
    svc_tags: [...asset.tags],
    svc_ip_addresses: [...asset.ip_addresses],
  };
}

/**
 * The inventory of these assets and groups: each group with its members among `assets` (a member not listed
 * is left out), `ungrouped` with the hosts in no group, and every host's variables. Hub groups do not nest,
 * so no group has children.
 */
export function buildInventory(assets: readonly Asset[], groups: readonly Group[]): Inventory {
  const hostNames = uniqueNames(assets, safeHostName, 'ast');
  const groupNames = uniqueNames(groups, safeGroupName, 'grp', reservedGroupNames);
  const hostOf = (id: string) => hostNames.get(id) ?? id;
  const listed = new Set(assets.map((a) => a.id));
  const grouped = new Set<string>();
  const inventoryGroups = new Map<string, InventoryGroup>();
  for (const group of groups) {
    const members = group.asset_ids.filter((id) => listed.has(id));
    for (const id of members) grouped.add(id);
    inventoryGroups.set(groupNames.get(group.id) ?? group.id, {
      hosts: members.map(hostOf).sort(),
      vars: { svc_group_id: group.id, svc_group_name: group.name },
      children: [],
    });
  }
  const ungrouped = assets.filter((a) => !grouped.has(a.id)).map((a) => hostOf(a.id));
  inventoryGroups.set('ungrouped', { hosts: ungrouped.sort(), vars: {}, children: [] });
  return {
    groups: inventoryGroups,
    hostvars: new Map(assets.map((asset) => [hostOf(asset.id), hostVars(asset)])),
  };
}

/** `--list`'s document: the groups by name, and every host's variables in `_meta.hostvars`. */
export function inventoryListJson(inventory: Inventory): Record<string, unknown> {
  // fromEntries defines each key as data, so a host called `__proto__` stays a host.
  const entries: [string, unknown][] = [
    ...inventory.groups,
    ['_meta', { hostvars: Object.fromEntries(inventory.hostvars) }],
  ];
  return Object.fromEntries(entries);
}

/** `--host <name>`'s document: that host's variables, `{}` for a name the inventory does not have. */
export function inventoryHostJson(inventory: Inventory, host: string): HostVars | Record<string, never> {
  return inventory.hostvars.get(host) ?? {};
}
