/**
 * discovery.scan: what runs on this host, for the hub's suggestions. Containers from the engine (when the
 * fleet's default or this node's override says so) and the TCP ports something listens on, read from
 * /proc/net/tcp and tcp6 (no probing, no shell). This node's own `services_discovery_port_scan_enabled`, when
 * set in its file, its environment or by low-power mode, wins over the fleet's default.
 */
import { open } from 'node:fs/promises';
import { discoveryLimits, type DiscoveredContainer, type ListeningPort } from '@svc/protocol';
import type { DockerEngine } from '../platform/docker-engine.js';
import { mapContainer } from './containers.js';
import type { HandlerMap } from './types.js';

function ipv4FromHex(hex: string): string | null {
  if (!/^[0-9A-Fa-f]{8}$/.test(hex)) return null;
  const value = Number.parseInt(hex, 16);
  // The kernel prints the address in host byte order: little-endian on the machines we run on.
  return [value & 0xff, (value >>> 8) & 0xff, (value >>> 16) & 0xff, (value >>> 24) & 0xff].join('.');
}

function ipv6FromHex(hex: string): string | null {
  if (!/^[0-9A-Fa-f]{32}$/.test(hex)) return null;
  const groups: string[] = [];
  for (let word = 0; word < 4; word++) {
    const chunk = hex.slice(word * 8, word * 8 + 8);
    // Each 32-bit word is little-endian: its bytes reversed.
    const bytes = (chunk.match(/../g) ?? []).reverse().join('');
    groups.push(bytes.slice(0, 4), bytes.slice(4, 8));
  }
  const text = groups.map((g) => Number.parseInt(g, 16).toString(16)).join(':');
  // The shortest form for the common cases; anything else stays in full.
  if (text === '0:0:0:0:0:0:0:0') return '::';
  if (text === '0:0:0:0:0:0:0:1') return '::1';
  const mapped = /^0:0:0:0:0:ffff:([0-9a-f]+):([0-9a-f]+)$/.exec(text);
  if (mapped?.[1] && mapped[2]) {
    const high = Number.parseInt(mapped[1], 16);
    const low = Number.parseInt(mapped[2], 16);
    return `::ffff:${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  return text;
}

/**
 * A LISTEN line of /proc/net/tcp{,6}: `  sl: local rem st …`, state 0A. Matched over whole chunks of the file,
 * so the lines of the (often tens of thousands of) other sockets are never split into strings of their own.
 */
const listenLine = /^\s*\d+:\s+([0-9A-Fa-f]+):([0-9A-Fa-f]{4})\s+[0-9A-Fa-f]+:[0-9A-Fa-f]{4}\s+0A\s/gm;

/** The listening sockets of /proc/net/tcp{,6} text (whole lines). */
export function parseProcNetTcp(text: string, protocol: 'tcp' | 'tcp6'): ListeningPort[] {
  const ports: ListeningPort[] = [];
  for (const [, addressHex = '', portHex = ''] of text.matchAll(listenLine)) {
    const port = Number.parseInt(portHex, 16);
    const address = protocol === 'tcp' ? ipv4FromHex(addressHex) : ipv6FromHex(addressHex);
    if (!address || !Number.isInteger(port) || port < 1 || port > 65535) continue;
    ports.push({ protocol, address, port });
  }
  return ports;
}

/** Bytes of /proc/net/tcp read at a time: a busy server's file is megabytes (~150 bytes a socket). */
const chunkBytes = 64 * 1024;

/**
 * The listening sockets of one /proc/net file, read a chunk at a time, so what the scan holds is one chunk
 * however many connections the machine has (a whole read of a 6 MB file left the agent 30 MB larger).
 */
async function readListeningOf(file: string, protocol: 'tcp' | 'tcp6'): Promise<ListeningPort[]> {
  const handle = await open(file, 'r').catch(() => null);
  if (!handle) return [];
  const ports: ListeningPort[] = [];
  try {
    const buffer = Buffer.allocUnsafe(chunkBytes);
    let carried = '';
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      const text = carried + buffer.toString('latin1', 0, bytesRead);
      const lastNewline = text.lastIndexOf('\n');
      // A line longer than a chunk is no socket line: dropped rather than carried without bound.
      carried = lastNewline < 0 ? (text.length > chunkBytes ? '' : text) : text.slice(lastNewline + 1);
      if (lastNewline >= 0) ports.push(...parseProcNetTcp(text.slice(0, lastNewline + 1), protocol));
    }
    if (carried) ports.push(...parseProcNetTcp(`${carried}\n`, protocol));
  } catch {
    // Unreadable part way: what was read stands.
  } finally {
    await handle.close();
  }
  return ports;
}

async function readListening(procNet: string): Promise<ListeningPort[]> {
  const seen = new Set<string>();
  const out: ListeningPort[] = [];
  for (const protocol of ['tcp', 'tcp6'] as const) {
    for (const entry of await readListeningOf(`${procNet}/${protocol}`, protocol)) {
      const key = `${entry.protocol} ${entry.address} ${String(entry.port)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(entry);
    }
  }
  return out.sort((a, b) => a.port - b.port).slice(0, discoveryLimits.listeningPorts);
}

async function readContainers(engine: DockerEngine | undefined): Promise<DiscoveredContainer[] | null> {
  if (!engine) return null;
  try {
    const data = await engine.getJson('/containers/json?all=1');
    return (Array.isArray(data) ? data : [])
      .map(mapContainer)
      .filter((c) => c !== null)
      .slice(0, discoveryLimits.containers)
      .map((c) => ({
        name: c.name,
        image: c.image,
        state: c.state,
        ports: c.ports,
        compose_project: c.compose_project,
      }));
  } catch {
    // No engine here (or it failed): nothing to suggest from it.
    return null;
  }
}

export interface DiscoveryOptions {
  engine?: DockerEngine;
  /** This node's own port-scan setting when it overrides the fleet (file, env, low-power); null: follow the fleet. */
  portScanOverride?: boolean | null;
  /** Where /proc/net is (tests point it at a directory of their own). */
  procNet?: string;
}

export function createDiscoveryHandlers(options: DiscoveryOptions): Pick<HandlerMap, 'discovery.scan'> {
  const procNet = options.procNet ?? '/proc/net';
  return {
    'discovery.scan': async (payload) => {
      const portScan = options.portScanOverride ?? payload.port_scan;
      const containers = payload.container ? await readContainers(options.engine) : null;
      const listening = portScan ? await readListening(procNet) : null;
      return { applied: { container: payload.container, port_scan: portScan }, containers, listening };
    },
  };
}
