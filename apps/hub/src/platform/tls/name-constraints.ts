/**
 * X.509 name constraints for the built-in CA (RFC 5280 4.2.1.10, decisions 0005 and 0052). A browser or system
 * that trusts the hub's CA then trusts it only for the hub's own names and addresses and the ones the operator
 * listed: whoever gets hold of the CA key cannot make a certificate that such a client accepts for a public
 * site, nor for another machine of the LAN (the router's `.lan` name, a NAS at 192.168.1.10).
 *
 * The extension is encoded and read here (DER by hand: two tags and a length) rather than through an ASN.1
 * package the hub does not depend on directly.
 */
import { isIP } from 'node:net';
import { addressBytes } from '../ip-address.js';

export const nameConstraintsOid = '2.5.29.30';

interface IpRange {
  /** The network address, as text. */
  address: string;
  prefix: number;
}

export interface NameConstraints {
  /** DNS subtrees: `lan` permits `lan` and every name ending in `.lan`. */
  dns: string[];
  ip: IpRange[];
}

/** `192.168.1.0/24`, `fd00::/64`: an address range, as SVC_TLS_CA_NAMES may list one. */
function parseRange(text: string): IpRange | null {
  const [address = '', prefixText, ...rest] = text.split('/');
  const family = isIP(address);
  if (family === 0 || prefixText === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefixText))
    return null;
  const prefix = Number(prefixText);
  if (prefix > (family === 4 ? 32 : 128)) return null;
  return { address: networkOf(address, prefix), prefix };
}

/** A DNS name the CA may certify, with its subdomains; `*.hub.lan` and `.hub.lan` mean `hub.lan`. */
const dnsNamePattern =
  /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * Why an entry of SVC_TLS_CA_NAMES cannot be a name constraint, or null when it can: a DNS name, an address
 * or an address range in CIDR notation.
 */
export function caNameProblem(entry: string): string | null {
  const text = entry.trim().toLowerCase();
  if (text.includes('/')) return parseRange(text) ? null : 'an address range must be address/prefix';
  if (isIP(text) !== 0) return null;
  return dnsNamePattern.test(text.replace(/^\*?\./, '').replace(/\.$/, ''))
    ? null
    : 'must be a DNS name, an address or an address range (address/prefix)';
}

/**
 * What the built-in CA may certify (decision 0052): exactly the hub's own names and addresses (`names`: the
 * server certificate's, SVC_TLS_HOSTNAMES with the host name, localhost, loopback and interface addresses) and
 * what the operator adds (`extra`, SVC_TLS_CA_NAMES: more names, addresses, address ranges). A DNS name
 * permits itself and its subdomains, never its parent or siblings; an address is a single address (/32, /128).
 * No local suffix (`lan`, `local`…) and no private range is in unless listed.
 */
export function caNameConstraints(names: readonly string[], extra: readonly string[] = []): NameConstraints {
  const dns = new Set<string>();
  const ip: IpRange[] = [];
  const addRange = (range: IpRange) => {
    if (!ip.some((r) => r.address === range.address && r.prefix === range.prefix)) ip.push(range);
  };
  for (const raw of [...names, ...extra]) {
    const name = raw.trim().toLowerCase().replace(/\.$/, '');
    if (!name) continue;
    const family = isIP(name);
    if (name.includes('/')) {
      const range = parseRange(name);
      if (range) addRange(range);
    } else if (family !== 0) addRange({ address: name, prefix: family === 4 ? 32 : 128 });
    else dns.add(name.replace(/^\*?\./, ''));
  }
  // A single address inside a listed range adds nothing.
  const minimalIp = ip.filter(
    (r) => !ip.some((o) => o !== r && o.prefix < r.prefix && isInRange(r.address, o)),
  );
  return { dns: minimalDns([...dns]), ip: minimalIp };
}

/**
 * What an existing CA may certify beyond `wanted` (the constraints a CA made now would carry): the subtrees
 * a CA made by an older hub has for whole local domains and private ranges, or for names since removed.
 */
export function constraintsBeyond(existing: NameConstraints, wanted: NameConstraints): string[] {
  const dns = existing.dns.filter((base) => !wanted.dns.some((w) => isDnsPermitted(base, w)));
  const ip = existing.ip.filter(
    (range) => !wanted.ip.some((w) => w.prefix <= range.prefix && isInRange(range.address, w)),
  );
  return [...dns, ...ip.map((r) => `${r.address}/${r.prefix}`)];
}

/** Drops names already covered by a shorter subtree (`hub.lan` under `lan`). */
function minimalDns(names: string[]): string[] {
  return names.filter((n) => !names.some((other) => other !== n && isDnsPermitted(n, other)));
}

function isDnsPermitted(name: string, base: string): boolean {
  const n = name.toLowerCase().replace(/\.$/, '');
  const b = base.toLowerCase().replace(/^\./, '');
  return n === b || n.endsWith(`.${b}`);
}

function maskOf(prefix: number, length: number): Buffer {
  const mask = Buffer.alloc(length);
  for (let bit = 0; bit < prefix; bit++) mask[bit >> 3] = (mask[bit >> 3] ?? 0) | (0x80 >> (bit & 7));
  return mask;
}

function isInRange(address: string, range: IpRange): boolean {
  const a = addressBytes(address);
  const net = addressBytes(range.address);
  if (!a || !net || a.length !== net.length) return false;
  const mask = maskOf(range.prefix, a.length);
  return a.every((byte, i) => (byte & (mask[i] ?? 0)) === ((net[i] ?? 0) & (mask[i] ?? 0)));
}

/** The network address of `address` under `prefix`, as text. */
function networkOf(address: string, prefix: number): string {
  const bytes = addressBytes(address) as Buffer;
  const mask = maskOf(prefix, bytes.length);
  return addressText(Buffer.from(bytes.map((byte, i) => byte & (mask[i] ?? 0))));
}

/** Whether a certificate name (host name or address) falls inside the constraints. */
export function isNamePermitted(name: string, constraints: NameConstraints): boolean {
  if (isIP(name) !== 0) return constraints.ip.some((range) => isInRange(name, range));
  return constraints.dns.some((base) => isDnsPermitted(name, base));
}

// ---- DER -----------------------------------------------------------------------------------------------

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const tags = { sequence: 0x30, permitted: 0xa0, dNSName: 0x82, iPAddress: 0x87 } as const;

/** The extension's value: NameConstraints { permittedSubtrees [0] } with dNSName and iPAddress bases. */
export function encodeNameConstraints(constraints: NameConstraints): Buffer {
  const subtrees = [
    ...constraints.dns.map((name) => tlv(tags.dNSName, Buffer.from(name, 'ascii'))),
    ...constraints.ip.map((range) => {
      const address = addressBytes(range.address) as Buffer;
      return tlv(tags.iPAddress, Buffer.concat([address, maskOf(range.prefix, address.length)]));
    }),
  ].map((base) => tlv(tags.sequence, base));
  return tlv(tags.sequence, tlv(tags.permitted, Buffer.concat(subtrees)));
}

interface Element {
  tag: number;
  content: Buffer;
  next: number;
}

function readElement(buf: Buffer, at: number): Element | null {
  const tag = buf[at];
  const first = buf[at + 1];
  if (tag === undefined || first === undefined) return null;
  let length = first;
  let start = at + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 3) return null;
    length = 0;
    for (let i = 0; i < count; i++) length = (length << 8) | (buf[start + i] ?? 0);
    start += count;
  }
  if (start + length > buf.length) return null;
  return { tag, content: buf.subarray(start, start + length), next: start + length };
}

function readAll(buf: Buffer): Element[] | null {
  const out: Element[] = [];
  for (let at = 0; at < buf.length;) {
    const element = readElement(buf, at);
    if (!element) return null;
    out.push(element);
    at = element.next;
  }
  return out;
}

function prefixOf(mask: Buffer): number {
  let bits = 0;
  for (const byte of mask) for (let b = 7; b >= 0; b--) if (byte & (1 << b)) bits++;
  return bits;
}

function addressText(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}

/**
 * The permitted DNS and IP subtrees of a NameConstraints value; null when it cannot be read or carries
 * anything else (excluded subtrees, other name forms), which callers treat as "cannot tell".
 */
export function decodeNameConstraints(der: Buffer): NameConstraints | null {
  const outer = readElement(der, 0);
  if (outer?.tag !== tags.sequence) return null;
  const parts = readAll(outer.content);
  if (parts?.length !== 1 || parts[0]?.tag !== tags.permitted) return null;
  const subtrees = readAll(parts[0].content);
  if (!subtrees) return null;
  const result: NameConstraints = { dns: [], ip: [] };
  for (const subtree of subtrees) {
    const base = subtree.tag === tags.sequence ? readAll(subtree.content)?.[0] : undefined;
    if (base?.tag === tags.dNSName) result.dns.push(base.content.toString('ascii'));
    else if (base?.tag === tags.iPAddress && (base.content.length === 8 || base.content.length === 32)) {
      const half = base.content.length / 2;
      result.ip.push({
        address: addressText(base.content.subarray(0, half)),
        prefix: prefixOf(base.content.subarray(half)),
      });
    } else return null;
  }
  return result;
}
