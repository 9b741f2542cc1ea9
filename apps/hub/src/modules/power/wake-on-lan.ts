/**
 * Wake-on-LAN: the magic packet (6 × 0xFF, then the MAC address 16 times: 102 bytes), sent from the hub
 * over UDP, and the choice of an online agent on the target's own subnet to relay it instead.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { formatIpv4, parseIpv4 } from '../../platform/ip-address.js';

const macPattern = /^[0-9a-f]{2}([:-]?[0-9a-f]{2}){5}$/i;

/** `aa:bb:cc:dd:ee:ff` (lowercase, colons) from the common spellings, or null. */
export function normalizeMac(text: string): string | null {
  const trimmed = text.trim();
  if (!macPattern.test(trimmed)) return null;
  const hex = trimmed.replace(/[:-]/g, '').toLowerCase();
  return hex.match(/../g)?.join(':') ?? null;
}

export function magicPacket(mac: string): Buffer {
  const normalized = normalizeMac(mac);
  if (!normalized) throw new Error(`not a MAC address: ${mac}`);
  const address = Buffer.from(normalized.replace(/:/g, ''), 'hex');
  const packet = Buffer.alloc(6 + 16 * 6, 0xff);
  for (let i = 0; i < 16; i += 1) address.copy(packet, 6 + i * 6);
  return packet;
}

export interface UdpTarget {
  host: string;
  port: number;
}

/** Parses `host:port` (SVC_WOL_BROADCAST); `[v6]:port` for IPv6. Throws on anything else. */
export function parseUdpTarget(text: string): UdpTarget {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(text) ?? /^([^:]+):(\d+)$/.exec(text);
  const host = match?.[1];
  const port = Number(match?.[2]);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`the Wake-on-LAN broadcast must be host:port, got "${text}"`);
  }
  return { host, port };
}

/** Sends the magic packet for `mac` from the hub. */
export async function sendMagicPacket(mac: string, target: UdpTarget): Promise<void> {
  const packet = magicPacket(mac);
  const socket = dgram.createSocket(net.isIPv6(target.host) ? 'udp6' : 'udp4');
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, () => {
        socket.setBroadcast(true);
        socket.send(packet, target.port, target.host, (error) => {
          if (error) reject(error);
          else resolve();
        });
      });
    });
  } finally {
    socket.close();
  }
}

// ---- the LAN a relay must share with the target ------------------------------------------------------

function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

/** The widest (/16) and narrowest (/30) IPv4 prefixes that count as a LAN a relay shares with its target. */
const relayPrefixBounds = { min: 16, max: 30 } as const;

/** One interface address an agent reports, with its prefix length when known. */
export interface RelayInterface {
  address: string;
  prefix: number | null;
}

export interface RelayCandidate {
  assetId: string;
  interfaces: readonly RelayInterface[];
  /** MAC addresses the agent reports: one equal to the target's says the agent claims to be the target. */
  macAddresses: readonly string[];
  /** Whether the caller may see this asset: among equal prefixes, the caller's own assets relay first. */
  isVisible: boolean;
  lastSeenAt: Date;
}

export interface RelayTarget {
  /** The target's known addresses (its asset's `ip_addresses`). */
  addresses: readonly string[];
  /**
   * The target's subnets as its own agent recorded them (`address/prefix`, the asset's `ip_networks`). Only
   * those whose address is still one of `addresses` count; with none, each address stands for its /24.
   */
  networks: readonly string[];
  mac: string;
}

export interface RelayChoice {
  assetId: string;
  /** The directed broadcast of the shared subnet, e.g. 192.168.1.255. */
  broadcast: string;
  prefix: number;
}

/**
 * The addresses an agent reports as relay evidence: its interfaces with their prefixes when it reports them
 * (agents from this version on), else its plain addresses, where one without a prefix counts as a /24.
 */
export function relayInterfacesOf(hello: {
  ip_addresses: readonly string[];
  interfaces?: readonly { address: string; prefix: number }[] | undefined;
}): RelayInterface[] {
  if (hello.interfaces) return hello.interfaces.map((i) => ({ address: i.address, prefix: i.prefix }));
  return hello.ip_addresses.map((text) => {
    const [address = '', prefixText] = text.trim().split('/');
    return { address, prefix: prefixText === undefined ? null : Number(prefixText) };
  });
}

/** A unicast IPv4 address: not 0/8, loopback, link-local, multicast or reserved. */
function isUnicastIpv4(address: number): boolean {
  const first = Math.floor(address / 2 ** 24);
  const second = Math.floor(address / 2 ** 16) % 256;
  return first !== 0 && first !== 127 && first < 224 && !(first === 169 && second === 254);
}

interface Subnet {
  network: number;
  mask: number;
  prefix: number;
}

/**
 * The subnet an interface claims, or null when it is no evidence of a LAN: IPv6 (relays send a directed
 * IPv4 broadcast), a prefix outside 16..30 (a /8 would make one agent the relay for a whole private range),
 * or an address that is not a host of its own subnet (its network or broadcast address).
 */
function subnetOf(iface: RelayInterface): Subnet | null {
  const address = parseIpv4(iface.address.trim());
  if (address === null || !isUnicastIpv4(address)) return null;
  const prefix = iface.prefix ?? 24;
  if (!Number.isInteger(prefix) || prefix < relayPrefixBounds.min || prefix > relayPrefixBounds.max)
    return null;
  const mask = maskOf(prefix);
  const network = (address & mask) >>> 0;
  const host = (address & ~mask) >>> 0;
  if (host === 0 || host === ~mask >>> 0) return null;
  return { network, mask, prefix };
}

/**
 * The subnets a relay must be on to reach the target (decision 0052): the ones its own agent recorded, each
 * judged by `subnetOf` like a relay's; for a target no agent described (or whose recorded addresses are gone
 * from its asset), each of its known addresses as its /24. Never a wider network that merely holds it.
 */
function targetSubnets(target: RelayTarget): Subnet[] {
  const known = new Set(target.addresses.map((a) => a.trim()));
  const recorded = target.networks
    .map((text) => {
      const [address = '', prefix] = text.trim().split('/');
      return { address, prefix: prefix === undefined ? null : Number(prefix) };
    })
    .filter((iface) => known.has(iface.address));
  const evidence = recorded.length > 0 ? recorded : [...known].map((address) => ({ address, prefix: null }));
  const subnets: Subnet[] = [];
  for (const iface of evidence) {
    const subnet = subnetOf(iface);
    if (subnet && !subnets.some((s) => s.network === subnet.network && s.prefix === subnet.prefix))
      subnets.push(subnet);
  }
  return subnets;
}

/**
 * The agent to relay a magic packet to the target's LAN: one with an interface on exactly one of the target's
 * own subnets (`targetSubnets`: same network, same prefix). An agent claiming a wider network that holds the
 * target's address does not qualify, however it ranks (decision 0052). Among those that do, an asset the
 * caller may see, then the agent seen most recently. An agent that reports the target's own address or MAC
 * address is never chosen: it claims to be the machine that is asleep.
 */
export function chooseRelay(target: RelayTarget, candidates: readonly RelayCandidate[]): RelayChoice | null {
  const subnets = targetSubnets(target);
  if (subnets.length === 0) return null;
  const targetAddresses = target.addresses
    .map((text) => parseIpv4(text.trim()))
    .filter((a): a is number => a !== null);
  const targetMac = target.mac.toLowerCase();
  let best: { candidate: RelayCandidate; choice: RelayChoice } | null = null;
  for (const candidate of candidates) {
    if (candidate.macAddresses.some((m) => normalizeMac(m) === targetMac)) continue;
    const addresses = candidate.interfaces.map((i) => parseIpv4(i.address.trim()));
    if (addresses.some((a) => a !== null && targetAddresses.includes(a))) continue;
    for (const iface of candidate.interfaces) {
      const subnet = subnetOf(iface);
      if (!subnet) continue;
      if (!subnets.some((s) => s.network === subnet.network && s.prefix === subnet.prefix)) continue;
      const choice = {
        assetId: candidate.assetId,
        broadcast: formatIpv4((subnet.network | (~subnet.mask >>> 0)) >>> 0),
        prefix: subnet.prefix,
      };
      if (!best || isBetterRelay(choice, candidate, best.choice, best.candidate))
        best = { candidate, choice };
    }
  }
  return best?.choice ?? null;
}

function isBetterRelay(
  choice: RelayChoice,
  candidate: RelayCandidate,
  bestChoice: RelayChoice,
  bestCandidate: RelayCandidate,
): boolean {
  if (choice.prefix !== bestChoice.prefix) return choice.prefix > bestChoice.prefix;
  if (candidate.isVisible !== bestCandidate.isVisible) return candidate.isVisible;
  return candidate.lastSeenAt.getTime() > bestCandidate.lastSeenAt.getTime();
}
