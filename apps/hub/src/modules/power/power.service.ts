/**
 * Power: reboot and shut down through the asset's agent, and Wake-on-LAN — relayed by an online agent on the
 * target's own recorded subnet when there is one (decision 0052) (a broadcast does not cross routers), else sent by the hub to the configured
 * broadcast address (ARCHITECTURE.md section 3, Wake-on-LAN). Every action is audited before it is sent.
 */
import type { WakeResult } from '@svc/protocol';
import type { EventBus } from '../../platform/event-bus.js';
import { readStringList } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import { canSeeAsset, type ActionContext } from '../../access/principal.js';
import type { AgentCaller } from '../../agents/agent-call.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  chooseRelay,
  normalizeMac,
  parseUdpTarget,
  relayInterfacesOf,
  sendMagicPacket,
  type RelayCandidate,
  type UdpTarget,
} from './wake-on-lan.js';

export interface PowerService {
  reboot(ctx: ActionContext, assetId: string): Promise<{ accepted: boolean }>;
  shutdown(ctx: ActionContext, assetId: string): Promise<{ accepted: boolean }>;
  wake(ctx: ActionContext, assetId: string): Promise<WakeResult>;
}

export interface PowerServiceDeps {
  audit: AuditService;
  events: EventBus;
  agents: AgentCaller;
  /** `host:port` the hub sends magic packets to (SVC_WOL_BROADCAST); default 255.255.255.255:9. */
  wolBroadcast?: string;
  /** The port a relaying agent sends to on its LAN. */
  wolRelayPort?: number;
  /** How the hub sends a packet (tests may observe it); default UDP from this process. */
  sendPacket?: (mac: string, target: UdpTarget) => Promise<void>;
}

const defaultWolBroadcast = '255.255.255.255:9';

function formatTarget(target: UdpTarget): string {
  return target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}

export function createPowerService(deps: PowerServiceDeps): PowerService {
  const { audit, events, agents } = deps;
  // Parsed once, at startup: a malformed setting fails the hub's start, not the first wake.
  const broadcast = parseUdpTarget(deps.wolBroadcast ?? defaultWolBroadcast);
  const relayPort = deps.wolRelayPort ?? 9;
  const sendPacket = deps.sendPacket ?? sendMagicPacket;

  async function power(ctx: ActionContext, assetId: string, type: 'power.reboot' | 'power.shutdown') {
    const row = await agents.loadAsset(ctx.principal, assetId, type);
    agents.requireOnline(row);
    await audit.recordIntent(ctx, [
      { action: type, targetType: 'asset', targetId: row.id, assetId: row.id, detail: { name: row.name } },
    ]);
    const result = await agents.call(row, type, {}, { timeoutMs: 30_000 });
    events.publish(type, { asset_ids: [row.id], asset_id: row.id, accepted: result.accepted });
    return { accepted: result.accepted };
  }

  /** Connected agents that can relay, as evidence for `chooseRelay`. */
  function relayCandidates(ctx: ActionContext, targetId: string): RelayCandidate[] {
    return agents.gateway
      .sessions()
      .filter((s) => s.assetId !== targetId && s.hello.capabilities.includes('wol'))
      .map((s) => ({
        assetId: s.assetId,
        interfaces: relayInterfacesOf(s.hello),
        macAddresses: s.hello.mac_addresses,
        isVisible: canSeeAsset(ctx.principal, s.assetId),
        lastSeenAt: s.lastSeenAt,
      }));
  }

  return {
    reboot: (ctx, assetId) => power(ctx, assetId, 'power.reboot'),
    shutdown: (ctx, assetId) => power(ctx, assetId, 'power.shutdown'),

    async wake(ctx, assetId) {
      const row = await agents.loadAsset(ctx.principal, assetId, 'wol.relay');
      const mac = row.mac_address ? normalizeMac(row.mac_address) : null;
      if (!mac) {
        throw new HubError(
          'conflict',
          `asset ${row.name} (${row.id}) has no MAC address; set mac_address to wake it`,
        );
      }
      const relay = chooseRelay(
        {
          addresses: readStringList(row.ip_addresses),
          networks: row.ip_networks ? readStringList(row.ip_networks) : [],
          mac,
        },
        relayCandidates(ctx, row.id),
      );
      // An asset the caller may not see stays unnamed, in the answer and in the audit row they may read.
      const shownRelay = relay && canSeeAsset(ctx.principal, relay.assetId) ? relay.assetId : null;
      await audit.recordIntent(ctx, [
        {
          action: 'power.wake',
          targetType: 'asset',
          targetId: row.id,
          assetId: row.id,
          detail: { mac, via: relay ? 'agent' : 'hub', relay_asset_id: shownRelay },
        },
      ]);
      if (relay) {
        try {
          const result = await agents.gateway.request(
            relay.assetId,
            'wol.relay',
            { mac, address: relay.broadcast, port: relayPort },
            { timeoutMs: 10_000 },
          );
          if (result.sent) {
            events.publish('power.wake', { asset_ids: [row.id], asset_id: row.id, sent_via: 'agent' });
            return {
              mac,
              sent_via: 'agent',
              relay_asset_id: shownRelay,
              target: `${relay.broadcast}:${relayPort}`,
            };
          }
        } catch {
          // The relay went away or failed: the hub's own broadcast is the fallback.
        }
      }
      try {
        await sendPacket(mac, broadcast);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new HubError(
          'unavailable',
          `could not send the magic packet to ${formatTarget(broadcast)}: ${reason}`,
        );
      }
      events.publish('power.wake', { asset_ids: [row.id], asset_id: row.id, sent_via: 'hub' });
      return { mac, sent_via: 'hub', relay_asset_id: null, target: formatTarget(broadcast) };
    },
  };
}
