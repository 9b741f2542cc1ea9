/**
 * Which addresses the hub may open an outbound connection to (spec 5.4, ARCHITECTURE §6 rules 6 and 12).
 * Pure: the policy is passed in, so the runtime settings can swap it without a restart.
 */
import { parseIpv4, parseIpv6 } from '../ip-address.js';

/** `security.outbound_allow_private`: `auto` and `true` allow private ranges; loopback has its own opt-in. */
export const outboundAllowPrivateModes = ['auto', 'true', 'false'] as const;
type OutboundAllowPrivate = (typeof outboundAllowPrivateModes)[number];

export interface OutboundPolicy {
  allowPrivate: OutboundAllowPrivate;
  allowLoopback: boolean;
  /** 169.254.0.0/16 and fe80::/10, the cloud metadata addresses included. */
  allowLinkLocal: boolean;
  /** `http://` and `ws://`. */
  allowInsecure: boolean;
  /** Host names (`api.example.net`, `*.example.net`) the hub may reach; null = any. Never skips the address check. */
  hostAllowlist: readonly string[] | null;
}

export const defaultOutboundPolicy: OutboundPolicy = {
  allowPrivate: 'auto',
  allowLoopback: false,
  allowLinkLocal: false,
  allowInsecure: false,
  hostAllowlist: null,
};

export type AddressCategory =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link_local'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'invalid';

export type AddressVerdict =
  | { allowed: true; address: string; category: AddressCategory }
  | { allowed: false; address: string; category: AddressCategory };

interface V4Range {
  base: number;
  bits: number;
  category: AddressCategory;
}

function v4(text: string, bits: number, category: AddressCategory): V4Range {
  return { base: parseIpv4(text) ?? 0, bits, category };
}

// Most specific first: the first match decides.
const v4Ranges: readonly V4Range[] = [
  v4('255.255.255.255', 32, 'broadcast'),
  v4('0.0.0.0', 8, 'unspecified'),
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link_local'),
  v4('10.0.0.0', 8, 'private'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.168.0.0', 16, 'private'),
  v4('100.64.0.0', 10, 'private'),
  // Benchmarking (RFC 2544): never on the Internet, so only a local network can answer.
  v4('198.18.0.0', 15, 'private'),
  // IETF protocol assignments and documentation ranges: nothing legitimate answers there.
  v4('192.0.0.0', 24, 'reserved'),
  v4('192.0.2.0', 24, 'reserved'),
  v4('198.51.100.0', 24, 'reserved'),
  v4('203.0.113.0', 24, 'reserved'),
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'),
];

function inV4Range(value: number, range: V4Range): boolean {
  const size = 2 ** (32 - range.bits);
  return Math.floor(value / size) === Math.floor(range.base / size);
}

function categoryOfV4(value: number): AddressCategory {
  return v4Ranges.find((range) => inV4Range(value, range))?.category ?? 'public';
}

function prefixOf(value: bigint, bits: number): bigint {
  return value >> BigInt(128 - bits);
}

function v6Prefix(text: string, bits: number): bigint {
  return prefixOf(parseIpv6(text) ?? 0n, bits);
}

function low32(value: bigint): number {
  return Number(value & 0xffffffffn);
}

const v6 = {
  metadata: parseIpv6('fd00:ec2::254'),
  mapped: v6Prefix('::ffff:0:0', 96),
  translated: v6Prefix('::ffff:0:0:0', 96),
  compatible: v6Prefix('::', 96),
  nat64: v6Prefix('64:ff9b::', 96),
  nat64Local: v6Prefix('64:ff9b:1::', 48),
  sixToFour: v6Prefix('2002::', 16),
  teredo: v6Prefix('2001::', 32),
  discard: v6Prefix('100::', 64),
  documentation: v6Prefix('2001:db8::', 32),
  linkLocal: v6Prefix('fe80::', 10),
  siteLocal: v6Prefix('fec0::', 10),
  uniqueLocal: v6Prefix('fc00::', 7),
  multicast: v6Prefix('ff00::', 8),
};

/** The stricter of two categories, for forms that carry two IPv4 addresses (Teredo). */
function stricter(a: AddressCategory, b: AddressCategory): AddressCategory {
  return a === 'public' ? b : a;
}

function categoryOfV6(value: bigint): AddressCategory {
  if (value === 0n) return 'unspecified';
  if (value === 1n) return 'loopback';
  // The metadata address sits inside fc00::/7; it is judged as link-local, like 169.254.169.254.
  if (value === v6.metadata) return 'link_local';
  // Forms that carry an IPv4 address are judged by that address, so ::ffff:127.0.0.1 is loopback.
  const prefix96 = prefixOf(value, 96);
  if ([v6.mapped, v6.translated, v6.compatible, v6.nat64].includes(prefix96))
    return categoryOfV4(low32(value));
  if (prefixOf(value, 48) === v6.nat64Local) return 'private';
  if (prefixOf(value, 16) === v6.sixToFour) return categoryOfV4(Number((value >> 80n) & 0xffffffffn));
  if (prefixOf(value, 32) === v6.teredo) {
    const server = Number((value >> 64n) & 0xffffffffn);
    const client = (low32(value) ^ 0xffffffff) >>> 0;
    return stricter(categoryOfV4(server), categoryOfV4(client));
  }
  if (prefixOf(value, 64) === v6.discard || prefixOf(value, 32) === v6.documentation) return 'reserved';
  if (prefixOf(value, 10) === v6.linkLocal) return 'link_local';
  if (prefixOf(value, 10) === v6.siteLocal) return 'private';
  if (prefixOf(value, 7) === v6.uniqueLocal) return 'private';
  if (prefixOf(value, 8) === v6.multicast) return 'multicast';
  return 'public';
}

/** The category of an IP address (v4, v6, `[v6]`, v6 with a zone); `invalid` for anything else. */
export function classifyAddress(address: string): AddressCategory {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const asV4 = parseIpv4(bare);
  if (asV4 !== null) return categoryOfV4(asV4);
  const asV6 = parseIpv6(bare);
  if (asV6 !== null) return categoryOfV6(asV6);
  return 'invalid';
}

function isCategoryAllowed(category: AddressCategory, policy: OutboundPolicy): boolean {
  switch (category) {
    case 'public':
      return true;
    case 'private':
      return policy.allowPrivate !== 'false';
    case 'loopback':
      return policy.allowLoopback;
    case 'link_local':
      return policy.allowLinkLocal;
    case 'unspecified':
    case 'multicast':
    case 'broadcast':
    case 'reserved':
    case 'invalid':
      return false;
  }
}

/** Whether the hub may connect to this address under this policy. Never throws. */
export function checkAddress(address: string, policy: OutboundPolicy): AddressVerdict {
  const category = classifyAddress(address);
  return { allowed: isCategoryAllowed(category, policy), address, category };
}

/** An IP literal as a URL host carries it (`[::1]` → `::1`), or null for a name. */
export function ipLiteralOf(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return parseIpv4(bare) !== null || parseIpv6(bare) !== null ? bare : null;
}

/** Exact names and `*.suffix` entries, case-insensitive, trailing dot ignored; null allows every name. */
export function isHostAllowed(hostname: string, allowlist: readonly string[] | null): boolean {
  if (allowlist === null) return true;
  const host = normalizeHost(hostname);
  return allowlist.some((entry) => {
    const pattern = normalizeHost(entry);
    if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
    return host === pattern;
  });
}

function normalizeHost(name: string): string {
  const lower = name.toLowerCase();
  const unbracketed = lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
  return unbracketed.endsWith('.') ? unbracketed.slice(0, -1) : unbracketed;
}
