/**
 * Two hub processes of one cluster in one test, as decision 0040 has them: one PostgreSQL schema, one
 * in-memory cluster network, one clock and one hub key, one built-in CA when TLS is on (decision 0055: the
 * second process gets a copy of the first's, as an operator copies it), and node registries the test drives (who is live, and
 * a node reported gone to B when the test says so). The hubs go into `hubs`, for the caller's afterEach to
 * close with `closeProcesses`.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { startTestHub, type TestHub, type TestHubOptions } from '@svc/testkit';
import { ManualClock } from '../platform/clock.js';
import { createMemoryClusterNetwork, type MemoryClusterNetwork } from '../platform/cluster/cluster-bus.js';
import {
  alwaysHeldLease,
  type NodeGoneListener,
  type NodeRegistry,
} from '../platform/cluster/node-registry.js';

function testRegistry(nodeId: string, live: Set<string>) {
  const listeners = new Set<NodeGoneListener>();
  const registry: NodeRegistry = {
    ...alwaysHeldLease(),
    nodeId,
    liveNodes: () => live,
    isLive: (id) => live.has(id),
    epochOf: (id) => (live.has(id) ? 1 : undefined),
    onNodeGone(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
  return {
    registry,
    async reportGone(gone: string) {
      live.delete(gone);
      for (const listener of listeners) await listener(gone);
    },
  };
}

export interface TwoProcesses {
  a: TestHub;
  b: TestHub;
  network: MemoryClusterNetwork;
  /** Node `gone` leaves the live set and B, the survivor, is told. */
  goneToB: (gone: string) => Promise<void>;
}

export async function startTwoProcesses(
  postgresUrl: string,
  hubs: TestHub[],
  extra: TestHubOptions = {},
): Promise<TwoProcesses> {
  const network = createMemoryClusterNetwork();
  const live = new Set(['node_a', 'node_b']);
  // One clock for both processes, as one machine's.
  const clock = extra.clock ?? new ManualClock(new Date('2026-11-26T06:00:00.000Z'));
  const regA = testRegistry('node_a', live);
  const regB = testRegistry('node_b', live);
  const env = {
    ...extra.env,
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SVC_OUTBOUND_ALLOW_LOOPBACK: 'true',
  };
  const a = await startTestHub({
    ...extra,
    clock,
    postgresUrl,
    env,
    cluster: { bus: network.join('node_a'), registry: regA.registry },
  });
  hubs.push(a);
  const b = await startTestHub({
    ...extra,
    clock,
    postgresUrl,
    env: { ...env, ...copiedCa(a) },
    joinDatabaseOf: a,
    cluster: { bus: network.join('node_b'), registry: regB.registry },
  });
  hubs.push(b);
  return { a, b, network, goneToB: (gone) => regB.reportGone(gone) };
}

/**
 * The built-in CA of `a`, copied for a second process as docs/operations.md says: its CA certificate in a data
 * directory of B's own (inside A's, removed with it) and A's CA key directory. None when A runs without TLS.
 */
function copiedCa(a: TestHub): Record<string, string> {
  const caCert = path.join(a.config.dataDir, 'tls', 'ca.crt');
  if (a.config.tlsMode !== 'auto' || !fs.existsSync(caCert)) return {};
  const dataDir = path.join(a.config.dataDir, 'peer-b');
  fs.mkdirSync(path.join(dataDir, 'tls'), { recursive: true, mode: 0o700 });
  fs.copyFileSync(caCert, path.join(dataDir, 'tls', 'ca.crt'));
  return { SVC_DATA_DIR: dataDir, SVC_TLS_CA_KEY_DIR: a.config.tlsCaKeyDir };
}

/** Closes the hubs, the second process first: the first one owns the schema. */
export async function closeProcesses(hubs: TestHub[]): Promise<void> {
  for (const hub of hubs.splice(0).reverse()) await hub.close();
}
