import dgram from 'node:dgram';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { WakeResult } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import type { Hello } from '@svc/protocol';
import { AgentReplyError } from '../../agents/agent-gateway.js';
import { createPresence } from '../../agents/presence.js';
import { createAssetPresenceStore } from '../assets/asset-presence.service.js';
import { createInProcessEventBus } from '../../platform/event-bus.js';
import { silentLogger } from '../../platform/logger.js';
import { fakeHello } from '../../testing/fake-gateway.js';
import { useOperations } from '../../testing/operations-app.js';
import {
  chooseRelay,
  magicPacket,
  normalizeMac,
  parseUdpTarget,
  relayInterfacesOf,
  sendMagicPacket,
} from './wake-on-lan.js';

/** A UDP listener on loopback standing in for the LAN broadcast: the hub never sends anywhere else in tests. */
let listener: dgram.Socket;
let port = 0;
const received: Buffer[] = [];

beforeAll(async () => {
  listener = dgram.createSocket('udp4');
  listener.on('message', (msg) => received.push(msg));
  await new Promise<void>((resolve) => listener.bind(0, '127.0.0.1', resolve));
  port = listener.address().port;
});
afterAll(() => {
  listener.close();
});
beforeEach(() => {
  received.length = 0;
});

/** What the listener got: waits for `count` packets, or a moment for stray ones when none are expected. */
async function packets(count: number): Promise<Buffer[]> {
  if (count === 0) await new Promise((r) => setTimeout(r, 50));
  for (let i = 0; i < 100 && received.length < count; i += 1) await new Promise((r) => setTimeout(r, 10));
  return [...received];
}

function expectedPacket(hex: string): Buffer {
  const mac = Buffer.from(hex, 'hex');
  return Buffer.concat([Buffer.alloc(6, 0xff), ...Array.from({ length: 16 }, () => mac)]);
}

async function auditOf(t: TestHub, assetId: string) {
  const rows = await t.hub.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('asset_id', '=', assetId)
    .where('action', 'like', 'power.%')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ action: r.action, detail: JSON.parse(r.detail) as Record<string, unknown> }));
}

/**
 * The asset's own agent says hello through the hub's real presence code, then goes to sleep: what the hub
 * records of its network (`ip_networks`) is what a relay must share.
 */
async function helloThenSleep(t: TestHub, assetId: string, hello: Partial<Hello>): Promise<void> {
  const presence = createPresence({
    store: createAssetPresenceStore(t.hub.database.db),
    clock: t.clock,
    events: createInProcessEventBus({ clock: t.clock, validate: true }),
    logger: silentLogger,
  });
  expect(await presence.connected(assetId, fakeHello(hello), '127.0.0.1')).toBe(true);
  await presence.disconnected(assetId);
}

describe.each(databaseTargets())('power ($name)', ({ options }) => {
  const use = useOperations(options, () => ({ wolBroadcast: `127.0.0.1:${port}` }));

  it('reboots and shuts down through the agent, audited before the agent is asked', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'srv' });
    const auditAtCall: number[] = [];
    ops.gateway.connect(asset.id, {
      handlers: {
        'power.reboot': async () => {
          auditAtCall.push((await auditOf(t, asset.id)).length);
          return { accepted: true };
        },
        'power.shutdown': async () => {
          auditAtCall.push((await auditOf(t, asset.id)).length);
          return { accepted: true };
        },
      },
    });

    const reboot = await ops.request('POST', `/api/v2/assets/${asset.id}/reboot`);
    const shutdown = await ops.request('POST', `/api/v2/assets/${asset.id}/shutdown`);

    expect([reboot.status, reboot.json.data]).toEqual([200, { accepted: true }]);
    expect([shutdown.status, shutdown.json.data]).toEqual([200, { accepted: true }]);
    expect(auditAtCall).toEqual([1, 2]);
    expect((await auditOf(t, asset.id)).map((a) => a.action)).toEqual(['power.reboot', 'power.shutdown']);
  });

  it('refuses reboot of an offline asset with 409 and audits nothing', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'gone' });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/reboot`);

    expect(res.status).toBe(409);
    expect(res.json.message).toBe(`asset gone (${asset.id}) is offline (last seen: never)`);
    expect(await auditOf(t, asset.id)).toEqual([]);
  });

  it('refuses to wake an asset without a MAC address with 409 conflict saying so', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'nomac' });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/wake`);

    expect(res.status).toBe(409);
    expect(res.json.error).toBe('conflict');
    expect(res.json.message).toContain('has no MAC address');
    expect(await packets(0)).toEqual([]);
  });

  it('sends the magic packet from the hub to the configured broadcast when no agent shares the LAN', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ mac_address: 'AA-BB-CC-0D-0E-0F', ip_addresses: ['192.168.7.20'] });
    const far = await t.createAsset();
    ops.gateway.connect(far.id, {
      hello: { ip_addresses: ['10.1.2.3/24'] },
      handlers: { 'wol.relay': () => ({ sent: true }) },
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/wake`);

    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      mac: 'aa:bb:cc:0d:0e:0f',
      sent_via: 'hub',
      relay_asset_id: null,
      target: `127.0.0.1:${port}`,
    });
    const [packet] = await packets(1);
    expect(packet?.length).toBe(102);
    expect(packet?.equals(expectedPacket('aabbcc0d0e0f'))).toBe(true);
    expect(ops.gateway.callsOf('wol.relay')).toEqual([]);
    expect(await auditOf(t, asset.id)).toEqual([
      { action: 'power.wake', detail: { mac: 'aa:bb:cc:0d:0e:0f', via: 'hub', relay_asset_id: null } },
    ]);
  });

  it('asks an online agent on the same /24 to relay, to its LAN broadcast', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ mac_address: '52:54:00:ab:cd:ef', ip_addresses: ['192.168.7.20'] });
    const neighbour = await t.createAsset();
    ops.gateway.connect(neighbour.id, {
      hello: { ip_addresses: ['fe80::1', '192.168.7.5'] },
      handlers: { 'wol.relay': () => ({ sent: true }) },
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/wake`);

    expect(res.status).toBe(200);
    expect(res.json.data as WakeResult).toEqual({
      mac: '52:54:00:ab:cd:ef',
      sent_via: 'agent',
      relay_asset_id: neighbour.id,
      target: '192.168.7.255:9',
    });
    expect(ops.gateway.callsOf('wol.relay').map((c) => [c.assetId, c.payload])).toEqual([
      [neighbour.id, { mac: '52:54:00:ab:cd:ef', address: '192.168.7.255', port: 9 }],
    ]);
    expect(await packets(0)).toEqual([]);
  });

  it("uses the target's recorded prefix and the relay's, and skips agents that cannot relay", async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ mac_address: '52:54:00:00:00:01' });
    await helloThenSleep(t, asset.id, {
      ip_addresses: ['192.168.1.20'],
      interfaces: [{ address: '192.168.1.20', prefix: 23 }],
    });
    const noWol = await t.createAsset();
    const wide = await t.createAsset();
    ops.gateway.connect(noWol.id, { hello: { ip_addresses: ['192.168.1.2/24'], capabilities: ['exec'] } });
    ops.gateway.connect(wide.id, {
      hello: { ip_addresses: ['192.168.0.5/23'] },
      handlers: { 'wol.relay': () => ({ sent: true }) },
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/wake`);

    expect(res.json.data).toMatchObject({
      sent_via: 'agent',
      relay_asset_id: wide.id,
      target: '192.168.1.255:9',
    });
    expect(ops.gateway.calls.map((c) => c.assetId)).toEqual([wide.id]);
  });

  it('falls back to the hub when the relay fails', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ mac_address: '52:54:00:00:00:02', ip_addresses: ['192.168.9.20'] });
    const relay = await t.createAsset();
    ops.gateway.connect(relay.id, {
      hello: { ip_addresses: ['192.168.9.3'] },
      handlers: {
        'wol.relay': () => {
          throw new AgentReplyError('failed', 'no broadcast permission');
        },
      },
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/wake`);

    expect(res.json.data).toMatchObject({ sent_via: 'hub', relay_asset_id: null });
    expect(ops.gateway.callsOf('wol.relay')).toHaveLength(1);
    const [packet] = await packets(1);
    expect(packet?.equals(expectedPacket('525400000002'))).toBe(true);
  });

  it('does not name a relay the caller may not see', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ mac_address: '52:54:00:00:00:03', ip_addresses: ['172.16.4.9'] });
    const relay = await t.createAsset();
    ops.gateway.connect(relay.id, {
      hello: { ip_addresses: ['172.16.4.1'] },
      handlers: { 'wol.relay': () => ({ sent: true }) },
    });
    const key = await t.createKey({ role: 'operator', scopes: ['assets:power'], allowed_assets: [asset.id] });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/wake`, { key: key.raw_key });
    const other = await ops.request('POST', `/api/v2/assets/${relay.id}/reboot`, { key: key.raw_key });

    expect(res.json.data).toMatchObject({
      sent_via: 'agent',
      relay_asset_id: null,
      target: '172.16.4.255:9',
    });
    expect(other.status).toBe(404);
    expect(await auditOf(t, asset.id)).toEqual([
      { action: 'power.wake', detail: { mac: '52:54:00:00:00:03', via: 'agent', relay_asset_id: null } },
    ]);
  });
  it('never chooses an agent claiming /8, /12 and /16 for unrelated assets, nor over a narrower neighbour', async () => {
    const { t, ops } = use();
    const inTen = await t.createAsset({ mac_address: '52:54:00:00:0a:01', ip_addresses: ['10.20.30.40'] });
    const inTwelve = await t.createAsset({ mac_address: '52:54:00:00:0a:02', ip_addresses: ['172.20.1.1'] });
    const inSixteen = await t.createAsset({
      mac_address: '52:54:00:00:0a:03',
      ip_addresses: ['192.168.7.9'],
    });
    const attacker = await t.createAsset();
    const neighbour = await t.createAsset();
    const captured: string[] = [];
    ops.gateway.connect(attacker.id, {
      hello: {
        ip_addresses: ['10.0.0.2/8', '172.16.0.2/12', '192.168.0.2/16'],
        interfaces: [
          { address: '10.0.0.2', prefix: 8 },
          { address: '172.16.0.2', prefix: 12 },
          { address: '192.168.0.2', prefix: 16 },
        ],
      },
      handlers: {
        'wol.relay': ({ mac }) => {
          captured.push(mac);
          return { sent: true };
        },
      },
    });
    ops.gateway.connect(neighbour.id, {
      hello: { ip_addresses: ['192.168.7.5'], interfaces: [{ address: '192.168.7.5', prefix: 24 }] },
      handlers: { 'wol.relay': () => ({ sent: true }) },
    });

    const ten = await ops.request('POST', `/api/v2/assets/${inTen.id}/wake`);
    const twelve = await ops.request('POST', `/api/v2/assets/${inTwelve.id}/wake`);
    const sixteen = await ops.request('POST', `/api/v2/assets/${inSixteen.id}/wake`);

    expect(ten.json.data).toMatchObject({ sent_via: 'hub', relay_asset_id: null });
    expect(twelve.json.data).toMatchObject({ sent_via: 'hub', relay_asset_id: null });
    expect(sixteen.json.data).toMatchObject({
      sent_via: 'agent',
      relay_asset_id: neighbour.id,
      target: '192.168.7.255:9',
    });
    expect(captured).toEqual([]);
    expect(ops.gateway.callsOf('wol.relay').map((c) => c.assetId)).toEqual([neighbour.id]);
    expect(await packets(2)).toHaveLength(2);
  });

  it("chooses relays only on the target's recorded subnet: an agent claiming a /16 around it gets nothing", async () => {
    const { t, ops } = use();
    const target = await t.createAsset({ mac_address: '52:54:00:00:0e:01' });
    await helloThenSleep(t, target.id, {
      ip_addresses: ['10.0.5.9'],
      interfaces: [{ address: '10.0.5.9', prefix: 24 }],
      mac_addresses: ['52:54:00:00:0e:01'],
    });
    const wide = await t.createAsset();
    const captured: string[] = [];
    ops.gateway.connect(wide.id, {
      hello: { ip_addresses: ['10.0.0.2'], interfaces: [{ address: '10.0.0.2', prefix: 16 }] },
      handlers: {
        'wol.relay': ({ mac }) => {
          captured.push(mac);
          return { sent: true };
        },
      },
    });

    const alone = await ops.request('POST', `/api/v2/assets/${target.id}/wake`);

    // No relay on 10.0.5.0/24: the hub sends its own broadcast, and the /16 agent learns nothing.
    expect(alone.status).toBe(200);
    expect(alone.json.data).toEqual({
      mac: '52:54:00:00:0e:01',
      sent_via: 'hub',
      relay_asset_id: null,
      target: `127.0.0.1:${port}`,
    });
    expect(captured).toEqual([]);
    expect(ops.gateway.callsOf('wol.relay')).toEqual([]);
    const [packet] = await packets(1);
    expect(packet?.equals(expectedPacket('525400000e01'))).toBe(true);

    received.length = 0;
    const neighbour = await t.createAsset();
    ops.gateway.connect(neighbour.id, {
      hello: { ip_addresses: ['10.0.5.7'], interfaces: [{ address: '10.0.5.7', prefix: 24 }] },
      handlers: { 'wol.relay': () => ({ sent: true }) },
    });

    const relayed = await ops.request('POST', `/api/v2/assets/${target.id}/wake`);

    expect(relayed.json.data).toEqual({
      mac: '52:54:00:00:0e:01',
      sent_via: 'agent',
      relay_asset_id: neighbour.id,
      target: '10.0.5.255:9',
    });
    expect(captured).toEqual([]);
    expect(ops.gateway.callsOf('wol.relay').map((c) => c.assetId)).toEqual([neighbour.id]);
    expect(await packets(0)).toEqual([]);
  });

  it("chooses the last seen agent on the target's subnet, never one on a wider subnet", async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ mac_address: '52:54:00:00:0b:01' });
    await helloThenSleep(t, asset.id, {
      ip_addresses: ['10.4.1.77'],
      interfaces: [{ address: '10.4.1.77', prefix: 25 }],
    });
    const [wide, narrow, older] = [await t.createAsset(), await t.createAsset(), await t.createAsset()];
    const relay = { handlers: { 'wol.relay': () => ({ sent: true }) } };
    ops.gateway.connect(wide.id, {
      hello: { interfaces: [{ address: '10.4.0.9', prefix: 22 }] },
      connectedAt: new Date('2026-01-01T00:09:00Z'),
      ...relay,
    });
    ops.gateway.connect(older.id, {
      hello: { interfaces: [{ address: '10.4.1.10', prefix: 25 }] },
      connectedAt: new Date('2026-01-01T00:00:00Z'),
      ...relay,
    });
    ops.gateway.connect(narrow.id, {
      hello: { interfaces: [{ address: '10.4.1.11', prefix: 25 }] },
      connectedAt: new Date('2026-01-01T00:05:00Z'),
      ...relay,
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/wake`);

    expect(res.json.data).toMatchObject({
      sent_via: 'agent',
      relay_asset_id: narrow.id,
      target: '10.4.1.127:9',
    });
    expect(ops.gateway.callsOf('wol.relay').map((c) => c.assetId)).toEqual([narrow.id]);
  });

  it("never asks an agent that reports the target's own address or MAC address", async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ mac_address: '52:54:00:00:0c:01', ip_addresses: ['192.168.3.30'] });
    const sameAddress = await t.createAsset();
    const sameMac = await t.createAsset();
    const relay = { handlers: { 'wol.relay': () => ({ sent: true }) } };
    ops.gateway.connect(sameAddress.id, {
      hello: { ip_addresses: ['192.168.3.30/24', '192.168.3.31/24'] },
      ...relay,
    });
    ops.gateway.connect(sameMac.id, {
      hello: { interfaces: [{ address: '192.168.3.32', prefix: 24 }], mac_addresses: ['52:54:00:00:0C:01'] },
      ...relay,
    });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/wake`);

    expect(res.json.data).toMatchObject({ sent_via: 'hub', relay_asset_id: null });
    expect(ops.gateway.callsOf('wol.relay')).toEqual([]);
    expect(await packets(1)).toHaveLength(1);
  });
});

describe('Wake-on-LAN pieces', () => {
  it('builds the 102-byte magic packet', () => {
    const packet = magicPacket('01:23:45:67:89:AB');
    expect(packet.length).toBe(102);
    expect(packet.subarray(0, 6).equals(Buffer.alloc(6, 0xff))).toBe(true);
    for (let i = 0; i < 16; i += 1)
      expect(packet.subarray(6 + i * 6, 12 + i * 6).toString('hex')).toBe('0123456789ab');
  });

  it('sends the packet over UDP to a loopback listener', async () => {
    received.length = 0;
    await sendMagicPacket('0a0b0c0d0e0f', { host: '127.0.0.1', port });
    const [packet] = await packets(1);
    expect(packet?.equals(expectedPacket('0a0b0c0d0e0f'))).toBe(true);
  });

  it('reads MAC addresses and host:port settings', () => {
    expect(normalizeMac('AA-BB-CC-DD-EE-FF')).toBe('aa:bb:cc:dd:ee:ff');
    expect(normalizeMac('aabbccddeeff')).toBe('aa:bb:cc:dd:ee:ff');
    expect(normalizeMac('aa:bb:cc:dd:ee')).toBeNull();
    expect(parseUdpTarget('255.255.255.255:9')).toEqual({ host: '255.255.255.255', port: 9 });
    expect(parseUdpTarget('[ff02::1]:7')).toEqual({ host: 'ff02::1', port: 7 });
    expect(() => parseUdpTarget('192.168.1.255')).toThrow();
    expect(() => parseUdpTarget('host:70000')).toThrow();
  });

  it("chooses a relay on the target's own subnet only, by sane prefixes of addresses that are hosts", () => {
    const candidate = (interfaces: { address: string; prefix: number | null }[], extra = {}) => ({
      assetId: 'a',
      interfaces,
      macAddresses: [],
      isVisible: true,
      lastSeenAt: new Date(0),
      ...extra,
    });
    type Iface = { address: string; prefix: number | null };
    const nine = ['10.0.5.9'];
    const cases: [string, string[], string[], Iface[], string | null][] = [
      ['another /24 (no prefix: a /24)', nine, [], [{ address: '10.0.6.1', prefix: null }], null],
      ['the same /24 (no prefix: a /24)', nine, [], [{ address: '10.0.5.1', prefix: null }], '10.0.5.255'],
      ['a /16 around a target no agent described', nine, [], [{ address: '10.0.6.1', prefix: 16 }], null],
      [
        'a /16 around a target recorded on a /24',
        nine,
        ['10.0.5.9/24'],
        [{ address: '10.0.0.2', prefix: 16 }],
        null,
      ],
      [
        'the /16 the target is recorded on',
        nine,
        ['10.0.5.9/16'],
        [{ address: '10.0.6.1', prefix: 16 }],
        '10.0.255.255',
      ],
      ['a /24 inside the target’s /16', nine, ['10.0.5.9/16'], [{ address: '10.0.5.1', prefix: 24 }], null],
      [
        'a recorded address the asset no longer has',
        nine,
        ['10.0.9.9/16'],
        [{ address: '10.0.6.1', prefix: 16 }],
        null,
      ],
      ['a /15', nine, ['10.0.5.9/15'], [{ address: '10.0.6.1', prefix: 15 }], null],
      ['a /8', nine, ['10.0.5.9/8'], [{ address: '10.0.6.1', prefix: 8 }], null],
      ['a /12', ['172.16.5.9'], ['172.16.5.9/12'], [{ address: '172.16.0.1', prefix: 12 }], null],
      ['a /31', ['10.0.5.1'], ['10.0.5.1/31'], [{ address: '10.0.5.0', prefix: 31 }], null],
      ['a /32', nine, ['10.0.5.9/32'], [{ address: '10.0.5.1', prefix: 32 }], null],
      ['a /30', ['10.0.5.1'], ['10.0.5.1/30'], [{ address: '10.0.5.2', prefix: 30 }], '10.0.5.3'],
      ['the network address', nine, [], [{ address: '10.0.5.0', prefix: 24 }], null],
      ['the broadcast address', nine, [], [{ address: '10.0.5.255', prefix: 24 }], null],
      ['a target that is the broadcast', ['10.0.5.255'], [], [{ address: '10.0.5.1', prefix: 24 }], null],
      ['no target address', [], [], [{ address: '10.0.6.1', prefix: null }], null],
      ['loopback', ['127.0.0.5'], [], [{ address: '127.0.0.1', prefix: 24 }], null],
      ['link-local', ['169.254.1.5'], ['169.254.1.5/16'], [{ address: '169.254.1.1', prefix: 16 }], null],
      ['IPv6', ['fd00::5'], ['fd00::5/64'], [{ address: 'fd00::1', prefix: 64 }], null],
      ['a prefix that is no number', nine, [], [{ address: '10.0.5.1', prefix: Number.NaN }], null],
    ];
    for (const [what, addresses, networks, interfaces, broadcast] of cases) {
      const choice = chooseRelay({ addresses, networks, mac: '52:54:00:00:00:09' }, [candidate(interfaces)]);
      expect([what, choice?.broadcast ?? null]).toEqual([what, broadcast]);
    }
  });

  it("ranks relays on the target's subnets by prefix, then the caller's own assets, then the last seen", () => {
    // Two interfaces of the target, on a /23 and on a /26: a relay on either qualifies, the narrower first.
    const twoNets = {
      addresses: ['192.168.1.20', '192.168.1.30'],
      networks: ['192.168.1.20/23', '192.168.1.30/26'],
      mac: '52:54:00:00:00:09',
    };
    const target = { addresses: ['192.168.1.20'], networks: ['192.168.1.20/24'], mac: '52:54:00:00:00:09' };
    const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
    const relay = (assetId: string, prefix: number, isVisible: boolean, minute: number) => ({
      assetId,
      interfaces: [{ address: '192.168.1.2', prefix }],
      macAddresses: [],
      isVisible,
      lastSeenAt: at(minute),
    });

    expect(chooseRelay(twoNets, [relay('wide', 23, true, 9), relay('narrow', 26, false, 1)])?.assetId).toBe(
      'narrow',
    );
    expect(chooseRelay(target, [relay('hidden', 24, false, 9), relay('own', 24, true, 1)])?.assetId).toBe(
      'own',
    );
    expect(chooseRelay(target, [relay('older', 24, true, 1), relay('newer', 24, true, 2)])?.assetId).toBe(
      'newer',
    );
  });

  it('reads relay evidence from reported interfaces, else from plain addresses', () => {
    expect(
      relayInterfacesOf({ ip_addresses: ['192.168.1.2'], interfaces: [{ address: '10.0.0.2', prefix: 24 }] }),
    ).toEqual([{ address: '10.0.0.2', prefix: 24 }]);
    expect(relayInterfacesOf({ ip_addresses: ['192.168.1.2', '10.0.0.2/23'] })).toEqual([
      { address: '192.168.1.2', prefix: null },
      { address: '10.0.0.2', prefix: 23 },
    ]);
  });
});
