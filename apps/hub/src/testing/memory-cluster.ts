/**
 * Whole hubs as processes of one cluster in one test (decisions 0039, 0043): one PostgreSQL schema, one
 * in-memory cluster network and one set of fake node registries, each hub listening on its own loopback port.
 * `close` stops the hubs and drops the schema.
 */
import { createPgSchema, startTestHub, type TestHub } from '@svc/testkit';
import { createMemoryClusterNetwork, type ClusterBus } from '../platform/cluster/cluster-bus.js';
import { FakeNodeRegistries } from './fake-node-registry.js';

export interface MemoryCluster {
  readonly hubs: TestHub[];
  /**
   * Starts a hub as node `node_<name>` of the cluster; `wrapBus` puts a test's own bus in front of its bus on
   * the network (to hold or watch what it hears).
   */
  startHub(name: string, options?: { wrapBus?: (bus: ClusterBus) => ClusterBus }): Promise<TestHub>;
  /** Stops the hub as its process would on SIGTERM (leaving the cluster). */
  stop(hub: TestHub): Promise<void>;
  /** The hub's process stops answering requests on the bus (hung) while its lease still holds. */
  silence(hub: TestHub): void;
  /** The hub's process dies: its bus stops answering, its lease runs out and `survivor` is told. */
  kill(hub: TestHub, survivor: TestHub): Promise<void>;
  /** ws://127.0.0.1:<port> of the hub. */
  baseOf(hub: TestHub): string;
  close(): Promise<void>;
}

export async function startMemoryCluster(postgresUrl: string): Promise<MemoryCluster> {
  const network = createMemoryClusterNetwork();
  const registries = new FakeNodeRegistries();
  const schema = await createPgSchema(postgresUrl);
  const hubs: TestHub[] = [];
  const buses = new Map<TestHub, ClusterBus>();
  const silenced = new Set<string>();
  const busOf = (hub: TestHub): ClusterBus => {
    const bus = buses.get(hub);
    if (!bus) throw new Error('not a hub of this cluster');
    return bus;
  };
  return {
    hubs,
    async startHub(name, options = {}) {
      const joined = network.join(`node_${name}`);
      const answering: ClusterBus = {
        ...joined,
        respond: (subject, responder, respondOptions) =>
          joined.respond(
            subject,
            (data, meta) =>
              silenced.has(joined.nodeId) ? new Promise(() => undefined) : responder(data, meta),
            respondOptions,
          ),
      };
      const bus = options.wrapBus ? options.wrapBus(answering) : answering;
      const hub = await startTestHub({
        postgresUrl,
        listen: true,
        cluster: { bus, registry: registries.registry(bus.nodeId) },
        pgSchema: schema.schema,
      });
      hubs.push(hub);
      buses.set(hub, joined);
      return hub;
    },
    async stop(hub) {
      hubs.splice(hubs.indexOf(hub), 1);
      await hub.close();
    },
    silence(hub) {
      silenced.add(busOf(hub).nodeId);
    },
    async kill(hub, survivor) {
      const bus = busOf(hub);
      await bus.close();
      await registries.kill(bus.nodeId, busOf(survivor).nodeId);
    },
    baseOf: (hub) => `ws://127.0.0.1:${String(hub.servers?.httpPort)}`,
    async close() {
      for (const hub of hubs) await hub.close();
      await schema.drop();
    },
  };
}

/** Polls until `check` holds: every 20 ms, for at most 5 s. */
export async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 250; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}
