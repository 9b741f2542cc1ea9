import { afterEach, describe, expect, it } from 'vitest';
import { FleetSimulator, provisionAgents } from './fleet-simulator.js';
import { startTestHub, type TestHub } from './hub-harness.js';

let t: TestHub | null = null;
let fleet: FleetSimulator | null = null;
afterEach(async () => {
  fleet?.stop();
  await t?.close();
  t = null;
  fleet = null;
});

const until = async (check: () => boolean | Promise<boolean>, ms = 15_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('fleet simulator', () => {
  it('connects many agents to a real hub, which sees them online, and they come back after being dropped', async () => {
    t = await startTestHub({ listen: true });
    const identities = await provisionAgents(t.hub, 60);
    fleet = new FleetSimulator({
      origin: `http://127.0.0.1:${t.servers!.httpPort}`,
      identities,
      heartbeatIntervalMs: 200,
      backoff: { baseMs: 50, capMs: 500 },
    });
    const started = await fleet.start();
    expect(started).toMatchObject({ connected: 60, failed: 0 });
    expect(t.hub.gateway.connectedCount()).toBe(60);
    await until(async () => {
      const status = await t!.request('GET', '/api/v2/hub/status');
      return (status.json.data as { assets: { online: number } }).assets.online === 60;
    });

    for (const identity of identities.slice(0, 10)) t.hub.gateway.disconnect(identity.assetId, 'test drop');
    // The hub counts an agent when its hello arrives, the simulator when the hub's answer does: wait for both.
    await until(
      () =>
        fleet!.stats.reconnects >= 10 &&
        t!.hub.gateway.connectedCount() === 60 &&
        fleet!.connectedCount() === 60,
    );
    expect(fleet.stats.reconnects).toBeGreaterThanOrEqual(10);
    expect(t.hub.gateway.connectedCount()).toBe(60);
  });
});
