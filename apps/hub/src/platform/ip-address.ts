/**
 * The hub's one reader of IP address text, on ipaddr.js: the egress guard, the LAN scan and Wake-on-LAN read
 * addresses here, so a form one of them would take as loopback cannot slip past another.
 */
import { isIPv6 } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * A dotted-quad IPv4 address (`192.168.1.10`) as a 32-bit number; null for anything else, including the
 * legacy forms some resolvers still read as loopback (`127.1`, `0x7f.1`, `0177.0.0.1`, `2130706433`).
 */
export function parseIpv4(text: string): number | null {
  if (!ipaddr.IPv4.isValidFourPartDecimal(text)) return null;
  return ipaddr.IPv4.parse(text).octets.reduce((acc, octet) => acc * 256 + octet, 0);
}

/** A 32-bit number as a dotted quad. */
export function formatIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/**
 * An IPv6 address as a 128-bit number: the zone (`%eth0`) dropped, an embedded dotted IPv4 tail read as its
 * last 32 bits; null for anything else (brackets included: the caller takes them off).
 */
export function parseIpv6(text: string): bigint | null {
  const bare = text.split('%')[0] ?? '';
  // Node's check is the strict one (no zone, no IPv4 tail in legacy forms); ipaddr.js then gives the groups.
  if (!isIPv6(bare)) return null;
  return ipaddr.IPv6.parse(bare).parts.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
}
