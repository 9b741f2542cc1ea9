/**
 * Wake-on-LAN: the magic packet (6 × 0xFF, then the MAC address 16 times: 102 bytes), sent from the hub
 * over UDP, and the choice of an online agent on the target's LAN to relay it instead.
 */
import dgram from 'node:dgram';
import net from 'node:net';

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

function ipv4ToInt(address: string): number | null {
  if (!net.isIPv4(address)) return null;
  return address.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

function intToIpv4(value: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

function maskOf(prefix: number): number {
  return prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
}

export interface Ipv4Address {
  address: number;
  /** The prefix length when the text carried one (`192.168.1.10/23`), else null. */
  prefix: number | null;
}

/** An IPv4 address with an optional `/prefix`; null for IPv6, loopback, link-local and anything else. */
export function parseIpv4(text: string): Ipv4Address | null {
  const [addressText = '', prefixText] = text.trim().split('/');
  const address = ipv4ToInt(addressText);
  if (address === null) return null;
  const first = Math.floor(address / 2 ** 24);
  if (first === 127 || first === 0 || addressText.startsWith('169.254.')) return null;
  if (prefixText === undefined) return { address, prefix: null };
  const prefix = Number(prefixText);
  if (!/^\d{1,2}$/.test(prefixText) || prefix > 32) return null;
  return { address, prefix };
}

export interface RelayCandidate {
  assetId: string;
  addresses: readonly string[];
}

export interface RelayChoice {
  assetId: string;
  /** The directed broadcast of the shared subnet, e.g. 192.168.1.255. */
  broadcast: string;
}

/**
 * The first candidate on the same IPv4 subnet as one of the target's addresses: by the relay's own prefix
 * when its address carries one (a /31 or /32 has no broadcast and is skipped), else by /24.
 */
export function chooseRelay(
  targetAddresses: readonly string[],
  candidates: readonly RelayCandidate[],
): RelayChoice | null {
  const targets = targetAddresses.map(parseIpv4).filter((a): a is Ipv4Address => a !== null);
  if (targets.length === 0) return null;
  for (const candidate of candidates) {
    for (const text of candidate.addresses) {
      const relay = parseIpv4(text);
      if (!relay) continue;
      const prefix = relay.prefix ?? 24;
      if (prefix < 8 || prefix > 30) continue;
      const mask = maskOf(prefix);
      const network = (relay.address & mask) >>> 0;
      const shared = targets.some((t) => (t.address & mask) >>> 0 === network);
      if (shared)
        return { assetId: candidate.assetId, broadcast: intToIpv4((network | (~mask >>> 0)) >>> 0) };
    }
  }
  return null;
}
