/**
 * Machines for the browser tests beyond the hub's own: a fake agent (the testkit's, speaking the real
 * channel) enrolled with a real enrollment token, answering what the test gives it and sending metric
 * samples; and manual devices, which have no agent and so are always offline.
 */
import type { Asset, Hello, MetricSample } from '@svc/protocol';
import { FakeAgent, tlsRequest, type FakeHandlers } from '@svc/testkit';
import type { ConsoleHarness } from './harness.js';

export interface EnrolledFake {
  assetId: string;
  agent: FakeAgent;
}

/**
 * Enrolls `hostname` with a fresh token and connects a fake agent for it (its hello extended by `hello`, e.g.
 * more capabilities); stop it with `agent.close()`.
 */
export async function connectFakeAgent(
  t: ConsoleHarness,
  hostname: string,
  handlers: FakeHandlers,
  hello: Partial<Hello> = {},
): Promise<EnrolledFake> {
  const token = await t.api('POST', '/api/v2/enrollment-tokens', { name: `e2e ${hostname}` });
  if (token.status !== 201) throw new Error(`enrollment token: ${token.status} ${token.text}`);
  const raw = (token.json.data as { token: string }).token;
  const request = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: raw, hostname, platform: 'linux', agent_version: 'fake-1.0.0' }),
  };
  // The mobile tests' hub is plain HTTP on localhost (harness `plainHttp`).
  const enrolled = t.baseUrl.startsWith('http:')
    ? await fetch(`${t.baseUrl}/api/v1/enroll`, request).then(async (r) => ({
        status: r.status,
        body: await r.text(),
      }))
    : await tlsRequest(`${t.baseUrl}/api/v1/enroll`, { ...request, insecure: true });
  if (enrolled.status !== 201) throw new Error(`enroll: ${enrolled.status} ${enrolled.body}`);
  const { data } = JSON.parse(enrolled.body) as {
    data: { asset_id: string; credential: string; channel_path: string };
  };
  const agent = new FakeAgent({
    url: `${t.baseUrl.replace(/^http/, 'ws')}${data.channel_path}`,
    credential: data.credential,
    insecure: true,
    hello: { hostname, ip_addresses: ['192.0.2.10'], mac_addresses: ['02:00:00:00:00:10'], ...hello },
    handlers,
  });
  await agent.start();
  return { assetId: data.asset_id, agent };
}

/** A manual device: no agent, so every operation on it answers 409 asset_offline. */
export async function createManualAsset(t: ConsoleHarness, name: string): Promise<Asset> {
  const made = await t.api('POST', '/api/v2/assets', {
    name,
    platform: 'linux',
    ip_addresses: ['192.0.2.50'],
  });
  if (made.status !== 201) throw new Error(`manual asset: ${made.status} ${made.text}`);
  return made.json.data as Asset;
}

/** The asset of the hub's own machine (the local agent), once it is online. */
export async function localAsset(t: ConsoleHarness): Promise<Asset> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const list = await t.api('GET', '/api/v2/assets?per_page=100');
    const host = (list.json.data as Asset[] | undefined)?.find((a) => a.hub_host && a.status === 'online');
    if (host) return host;
    if (Date.now() > deadline) throw new Error(`the local agent is not online:\n${t.hubOutput()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Signs the owner in and opens a terminal on the local agent's machine: the page is on the new session. */
export async function openLocalTerminal(t: ConsoleHarness): Promise<void> {
  const asset = await localAsset(t);
  await t.signIn('owner');
  await t.page.goto(`${t.baseUrl}/assets/${encodeURIComponent(asset.id)}/terminal`);
  await t.page.getByRole('button', { name: 'Open a terminal' }).click();
  await t.page.waitForURL(/\/sessions\/rss_/);
}

/**
 * An hour of one-minute samples ending now, shaped like a working machine: CPU with a daily-looking wave,
 * memory creeping up, steady disk and some traffic.
 */
/**
 * Six days of samples every 30 minutes, ending a day ago, with the agent silent for a day in the middle
 * (from 4 to 3 days ago): older than hourOfSamples, so send these first.
 */
export function weekOfSamples(now = Date.now()): MetricSample[] {
  const gib = 1024 ** 3;
  const halfHour = 30 * 60_000;
  const day = 24 * 60 * 60_000;
  const samples: MetricSample[] = [];
  for (let at = now - 6.5 * day; at <= now - day; at += halfHour) {
    if (at > now - 4 * day && at < now - 3 * day) continue;
    const i = samples.length;
    samples.push({
      ts: new Date(at).toISOString(),
      cpu_percent: 20 + (i % 10) * 5,
      memory_used_bytes: 6 * gib,
      memory_total_bytes: 16 * gib,
      disk_used_bytes: 200 * gib,
      disk_total_bytes: 480 * gib,
      load1: 1 + (i % 4) / 4,
      net_rx_bytes: 30 * 1024 * 1024,
      net_tx_bytes: 6 * 1024 * 1024,
    });
  }
  return samples;
}

export function hourOfSamples(now = Date.now()): MetricSample[] {
  const gib = 1024 ** 3;
  return Array.from({ length: 59 }, (_, i) => {
    const minute = 58 - i;
    return {
      ts: new Date(now - minute * 60_000).toISOString(),
      cpu_percent: Math.round((30 + 25 * Math.sin(i / 6) + (i % 7) * 2) * 10) / 10,
      memory_used_bytes: Math.round((5 + i * 0.03) * gib),
      memory_total_bytes: 16 * gib,
      disk_used_bytes: 210 * gib,
      disk_total_bytes: 480 * gib,
      load1: Math.round((0.8 + Math.sin(i / 5)) * 100) / 100 + 1,
      net_rx_bytes: (40 + (i % 10) * 8) * 1024 * 1024,
      net_tx_bytes: (8 + (i % 5) * 3) * 1024 * 1024,
    };
  });
}
