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

/** Starts the cluster (three processes), then HAProxy in front; waits until /readyz answers 200 through it. */
export async function startBalancedCluster(
  options: Omit<HubClusterOptions, 'size'> = {},
  readyTimeoutMs = 15_000,
): Promise<BalancedCluster> {
  const cluster = await startHubCluster({ ...options, size: 3 });
  let lb: RunningHaproxy | null = null;
  try {
    const caFile = path.join(cluster.workDir, 'hub-ca.crt');
    fs.writeFileSync(caFile, cluster.caPem);
    const { pemFile } = await cluster.issueCertificate(['localhost', '127.0.0.1']);
    const backend = (i: number) => `127.0.0.1:${String(cluster.nodes[i]?.httpsPort ?? 0)}`;
    lb = await startHaproxy({
      backends: [backend(0), backend(1), backend(2)],
      backendCaFile: caFile,
      certificateFile: pemFile,
    });
    const deadline = Date.now() + readyTimeoutMs;
    let last = 'no answer yet';
    for (let attempt = 0; ; attempt++) {
      try {
        const answer = await tlsRequest(`${lb.url}/readyz`, { method: 'GET', ca: cluster.caPem });
        if (answer.status === 200) break;
        last = String(answer.status);
      } catch (error) {
        last = (error as Error).message;
      }
      if (Date.now() > deadline || attempt >= 1_000)
        throw new Error(
          `HAProxy passed no request in ${String(readyTimeoutMs)} ms (${last}):\n${lb.output().slice(-3000)}`,
        );
      await sleep(100);
    }
    const running = lb;
    return {
      cluster,
      lb: running,
      async close() {
        await running.stop();
        await cluster.close();
      },
    };
  } catch (error) {
    await lb?.stop();
    await cluster.close();
    throw error;
  }
}
