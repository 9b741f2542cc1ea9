/**
 * The hub's one reader of IP address text, on ipaddr.js: the egress guard, the LAN scan and Wake-on-LAN read
 * addresses here, so a form one of them would take as loopback cannot slip past another.
 */
import { isIP, isIPv6 } from 'node:net';
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

/** `address` as ipaddr.js reads it, an IPv4-mapped IPv6 address as its IPv4; null when it is not an address. */
function parsed(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.split('%')[0] ?? '';
  if (ipaddr.IPv4.isValidFourPartDecimal(bare)) return ipaddr.IPv4.parse(bare);
  if (!isIPv6(bare)) return null;
  const v6 = ipaddr.IPv6.parse(bare);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/**
 * The key a client address is counted under by the hub's limits and refusal logs: IPv4 as is (also when mapped
 * into IPv6), IPv6 by its /64 (`2001:db8:1:2::/64`), as one holder usually has a whole /64 and could otherwise
 * count as 2^64 sources; anything else (a Unix socket's empty name…) as its first 64 characters.
 */
export function sourceKey(address: string): string {
  const ip = parsed(address);
  if (ip === null) return address.slice(0, 64);
  if (ip.kind() === 'ipv4') return ip.toString();
  const groups = (ip as ipaddr.IPv6).parts.slice(0, 4).map((g) => g.toString(16));
  return `${groups.join(':')}::/64`;
}

/** A loopback address: 127.0.0.0/8, ::1, and 127.x mapped into IPv6. */
export function isLoopbackAddress(address: string | undefined): boolean {
  return address !== undefined && parsed(address)?.range() === 'loopback';
}

/** An address's bytes in network order (4 for IPv4, 16 for IPv6, as X.509 writes them); null when it is none. */
export function addressBytes(text: string): Buffer | null {
  if (isIP(text) === 0) return null;
  return Buffer.from(ipaddr.parse(text).toByteArray());
}
