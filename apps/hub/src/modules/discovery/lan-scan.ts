/**
 * The LAN CIDR probe of a discovery run, from the hub: TCP connects to a few ports of each address of one
 * IPv4 /24 at most, each address judged first by the egress policy (spec 5.4: private ranges as the setting
 * says, loopback and link-local only with their opt-ins), bounded in concurrency and rate. A connect that
 * completes means a host answers there; nothing is sent on the connection.
 */
import net from 'node:net';
import { formatIpv4, parseIpv4 } from '../../platform/ip-address.js';
import { checkAddress, type OutboundPolicy } from '../../platform/outbound/address-policy.js';

export interface LanScanOptions {
  policy: OutboundPolicy;
  ports: readonly number[];
  /** Per connect attempt. */
  timeoutMs?: number;
  concurrency?: number;
  /** Connection attempts started per second at most. */
  perSecond?: number;
  connect?: (address: string, port: number, timeoutMs: number) => Promise<boolean>;
}

export interface LanScanResult {
  addresses: number;
  probes: number;
  refused: number;
  hosts: { address: string; ports: number[] }[];
}

/**
 * The host addresses of an IPv4 CIDR no wider than /`minPrefix` (network and broadcast addresses left out
 * below /31), or a reason it is refused.
 */
export function expandCidr(cidr: string, minPrefix = 24): { addresses: string[] } | { error: string } {
  const [base = '', bitsText = ''] = cidr.split('/');
  const start = parseIpv4(base);
  const bits = Number(bitsText);
  if (start === null || !/^\d{1,2}$/.test(bitsText) || bits > 32)
    return { error: 'must be an IPv4 CIDR like 192.168.1.0/24' };
  if (bits < minPrefix)
    return { error: `must be /${minPrefix} or narrower (at most ${2 ** (32 - minPrefix)} addresses)` };
  const size = 2 ** (32 - bits);
  const network = start - (start % size);
  if (network !== start)
    return { error: `is not a network address (did you mean ${formatIpv4(network)}/${bits}?)` };
  const addresses: string[] = [];
  const first = size > 2 ? network + 1 : network;
  const last = size > 2 ? network + size - 2 : network + size - 1;
  for (let a = first; a <= last; a++) addresses.push(formatIpv4(a));
  return { addresses };
}

function tcpConnect(address: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => {
      done(false);
    });
    socket.once('connect', () => {
      done(true);
    });
    socket.once('error', () => {
      done(false);
    });
  });
}

export async function scanLan(addresses: readonly string[], options: LanScanOptions): Promise<LanScanResult> {
  const timeoutMs = options.timeoutMs ?? 500;
  const concurrency = options.concurrency ?? 32;
  const gapMs = 1000 / (options.perSecond ?? 200);
  const connect = options.connect ?? tcpConnect;
  const allowed = addresses.filter((a) => checkAddress(a, options.policy).allowed);
  const jobs = allowed.flatMap((address) => options.ports.map((port) => ({ address, port })));
  const open = new Map<string, number[]>();
  let next = 0;
  let nextStartAt = Date.now();
  const worker = async () => {
    for (;;) {
      const job = jobs[next++];
      if (!job) return;
      // Paced: one start per gap across all workers, so a run never floods the LAN.
      const wait = nextStartAt - Date.now();
      nextStartAt = Math.max(nextStartAt, Date.now()) + gapMs;
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (await connect(job.address, job.port, timeoutMs)) {
        open.set(job.address, [...(open.get(job.address) ?? []), job.port]);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, jobs.length) }, worker));
  return {
    addresses: addresses.length,
    probes: jobs.length,
    refused: addresses.length - allowed.length,
    hosts: allowed
      .filter((a) => open.has(a))
      .map((address) => ({ address, ports: (open.get(address) ?? []).sort((x, y) => x - y) })),
  };
}
