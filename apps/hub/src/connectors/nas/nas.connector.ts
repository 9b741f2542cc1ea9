/** The TrueNAS driver: reachable and authenticated when its pools can be read; the NAS itself is one asset. */
import type { NasDataset, NasPool } from '@svc/protocol';
import type { ConnectorDriver, UpstreamContext } from '../base/connector.js';
import { truenasReads } from './nas.client.js';
import { toNasDatasets, toNasPools } from './nas.mapping.js';

/** The one asset a TrueNAS connector brings: the appliance. */
const nasExternalId = 'nas';

export const nasDriver: ConnectorDriver = {
  kind: 'nas',
  async check(ctx) {
    await (await truenasReads(ctx)).pools();
  },
  async inventory(ctx) {
    const reads = await truenasReads(ctx);
    const pools = await reads.pools();
    return [
      {
        externalId: nasExternalId,
        kind: 'nas',
        name: ctx.connector.name,
        hostname: new URL(ctx.connector.baseUrl).hostname,
        status: 'online',
        facts: {
          api: reads.transport,
          pools: pools.length,
          degraded_pools: pools.filter((p) => !p.healthy).length,
        },
      },
    ];
  },
};

export async function nasPools(ctx: UpstreamContext): Promise<NasPool[]> {
  return toNasPools(await (await truenasReads(ctx)).pools());
}

export async function nasDatasets(ctx: UpstreamContext): Promise<NasDataset[]> {
  return toNasDatasets(await (await truenasReads(ctx)).datasets());
}
