/**
 * Three hub processes (hub-cluster.ts) behind Debian's HAProxy running deploy/haproxy/haproxy.cfg (haproxy.ts),
 * as docs/operations.md deploys them: HAProxy serves a certificate from the hubs' shared CA, verifies the
 * backends with that CA, and is ready once a request through it is answered.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startHaproxy, type RunningHaproxy } from './haproxy.js';
import { tlsRequest } from './https-client.js';
import { startHubCluster, type HubCluster, type HubClusterOptions } from './hub-cluster.js';

export interface BalancedCluster {
  cluster: HubCluster;
  lb: RunningHaproxy;
  /** Stops HAProxy, then the processes (and drops their database). */
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Starts HAProxy in front of the first three processes of a running cluster: it verifies them with the
 * cluster's CA (written to the cluster's work directory) and serves a certificate the CA issues for localhost
 * and 127.0.0.1. Resolves once /readyz answers 200 through it; stops it again if that does not come.
 */
export async function startHaproxyFor(cluster: HubCluster, readyTimeoutMs = 15_000): Promise<RunningHaproxy> {
  const [hub1, hub2, hub3] = cluster.nodes;
  if (!hub1 || !hub2 || !hub3)
    throw new Error(`HAProxy needs three hub processes, the cluster has ${String(cluster.nodes.length)}`);
  const caFile = path.join(cluster.workDir, 'hub-ca.crt');
  fs.writeFileSync(caFile, cluster.caPem);
  const { pemFile } = await cluster.issueCertificate(['localhost', '127.0.0.1']);
  const backend = (node: { httpsPort: number }) => `127.0.0.1:${String(node.httpsPort)}`;
  const lb = await startHaproxy({
    backends: [backend(hub1), backend(hub2), backend(hub3)],
    backendCaFile: caFile,
    certificateFile: pemFile,
  });
  try {
    await waitReadyThrough(lb, cluster.caPem, readyTimeoutMs);
  } catch (error) {
    await lb.stop();
    throw error;
  }
  return lb;
}

async function waitReadyThrough(lb: RunningHaproxy, ca: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: string;
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await tlsRequest(`${lb.url}/readyz`, { method: 'GET', ca });
      if (answer.status === 200) return;
      last = String(answer.status);
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline || attempt >= 1_000)
      throw new Error(
        `HAProxy passed no request in ${String(timeoutMs)} ms (${last}):\n${lb.output().slice(-3000)}`,
      );
    await sleep(100);
  }
}

/** Starts the cluster (three processes), then HAProxy in front; waits until /readyz answers 200 through it. */
export async function startBalancedCluster(
  options: Omit<HubClusterOptions, 'size'> = {},
  readyTimeoutMs = 15_000,
): Promise<BalancedCluster> {
  const cluster = await startHubCluster({ ...options, size: 3 });
  try {
    const lb = await startHaproxyFor(cluster, readyTimeoutMs);
    return {
      cluster,
      lb,
      async close() {
        await lb.stop();
        await cluster.close();
      },
    };
  } catch (error) {
    await cluster.close();
    throw error;
  }
}
