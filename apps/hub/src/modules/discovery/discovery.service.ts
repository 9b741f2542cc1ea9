/**
 * Discovery: a run asks every online agent what it runs (containers, listening TCP ports) per the fleet's
 * defaults, and, only when `services.discovery_default_lan_scan` is on and the caller names a CIDR, probes
 * that LAN from the hub through the egress policy. Findings become suggestions, deduplicated by what they
 * are; a person accepts or dismisses each, and a dismissed one stays dismissed when found again. Nothing
 * becomes an asset unless a person accepts a LAN host (docs/decisions/0021-discovery.md).
 */
import {
  discoveryLanLimits,
  newId,
  type AgentRequestResult,
  type DiscoveryDefaults,
  type DiscoveryRunRequest,
  type DiscoveryRunResult,
  type DiscoverySuggestion,
} from '@svc/protocol';
import { actorOf, systemOwnerContext, type ActionContext } from '../../access/principal.js';
import type { AgentGateway } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { OutboundPolicy } from '../../platform/outbound/address-policy.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  decideSuggestion,
  findSuggestion,
  findSuggestionsByKeys,
  insertSuggestions,
  listSuggestions,
  reopenSuggestion,
  setCreatedAsset,
  touchSuggestion,
  type SuggestionRow,
} from './discovery.repository.js';
import { expandCidr, scanLan, type LanScanOptions } from './lan-scan.js';

export interface DiscoveryService {
  run(ctx: ActionContext, input: DiscoveryRunRequest): Promise<DiscoveryRunResult>;
  list(
    query: { status?: string | undefined; kind?: string | undefined },
    page: PageRequest,
  ): Promise<Page<DiscoverySuggestion>>;
  accept(ctx: ActionContext, id: string, input: { name?: string | undefined }): Promise<DiscoverySuggestion>;
  dismiss(ctx: ActionContext, id: string): Promise<DiscoverySuggestion>;
  /** One suggestion, whatever its status (a check made from it: the checks module). */
  suggestion(id: string): Promise<DiscoverySuggestion>;
}

export interface DiscoveryServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  gateway: Pick<AgentGateway, 'sessions' | 'request'>;
  assets: Pick<AssetService, 'create' | 'list' | 'names'>;
  defaults: () => DiscoveryDefaults;
  /** The egress policy now (the runtime setting included): what the LAN probe may reach. */
  outboundPolicy: () => OutboundPolicy;
  /** Test seam for the LAN probe's connections and pace. */
  lanScan?: Partial<Pick<LanScanOptions, 'connect' | 'timeoutMs' | 'perSecond'>>;
}

interface Finding {
  key: string;
  kind: DiscoverySuggestion['kind'];
  assetId: string | null;
  title: string;
  detail: DiscoverySuggestion['detail'];
}

const agentConcurrency = 16;
const agentTimeoutMs = 20_000;

function isLoopback(address: string): boolean {
  return address.startsWith('127.') || address === '::1' || address.startsWith('::ffff:127.');
}

/** What one agent's answer suggests: its containers and the TCP ports something listens on beyond loopback. */
function findingsOf(
  assetId: string,
  assetName: string,
  scan: AgentRequestResult<'discovery.scan'>,
): Finding[] {
  const findings: Finding[] = [];
  for (const c of scan.containers ?? []) {
    const ports = [...new Set(c.ports.map((p) => p.public_port).filter((p): p is number => p !== null))].sort(
      (a, b) => a - b,
    );
    findings.push({
      key: `container:${assetId}:${c.name}`,
      kind: 'container',
      assetId,
      title: `${c.name} (${c.image}) on ${assetName}`,
      detail: { name: c.name, image: c.image, state: c.state, compose_project: c.compose_project, ports },
    });
  }
  const ports = new Map<number, string[]>();
  for (const l of scan.listening ?? []) {
    if (isLoopback(l.address)) continue;
    ports.set(l.port, [...(ports.get(l.port) ?? []), l.address]);
  }
  for (const [port, addresses] of [...ports.entries()].sort(([a], [b]) => a - b)) {
    findings.push({
      key: `port:${assetId}:tcp:${String(port)}`,
      kind: 'port',
      assetId,
      title: `TCP ${String(port)} on ${assetName}`,
      detail: { protocol: 'tcp', port, address: addresses.join(', ') },
    });
  }
  return findings;
}

function present(row: SuggestionRow): DiscoverySuggestion {
  let detail: DiscoverySuggestion['detail'] = {};
  try {
    const parsed: unknown = JSON.parse(row.detail);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) detail = parsed;
  } catch {
    detail = {};
  }
  return {
    id: row.id,
    kind: row.kind as DiscoverySuggestion['kind'],
    status: row.status as DiscoverySuggestion['status'],
    asset_id: row.asset_id,
    title: row.title,
    detail,
    first_seen_at: row.first_seen_at,
    last_seen_at: row.last_seen_at,
    decided_at: row.decided_at,
    created_asset_id: row.created_asset_id,
  };
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (;;) {
      const index = next++;
      const item = items[index];
      if (item === undefined) return;
      results[index] = await run(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export function createDiscoveryService(deps: DiscoveryServiceDeps): DiscoveryService {
  const { db, clock, audit, events, gateway, assets } = deps;

  /** Every address the fleet's assets already have, so a LAN host that is one is not suggested. */
  async function knownAddresses(): Promise<Set<string>> {
    const known = new Set<string>();
    const owner = systemOwnerContext().principal;
    for (let page = 1; page <= 100; page++) {
      const batch = await assets.list(owner, {}, { page, perPage: 500 });
      for (const asset of batch.items) for (const ip of asset.ip_addresses) known.add(ip);
      if (batch.items.length < 500) break;
    }
    return known;
  }

  async function loadDecidable(id: string): Promise<SuggestionRow> {
    const row = await findSuggestion(db, id);
    if (!row) throw new HubError('not_found', `no discovery suggestion ${id}`);
    if (row.status !== 'pending') throw new HubError('conflict', `suggestion ${id} is already ${row.status}`);
    return row;
  }

  return {
    async suggestion(id) {
      const row = await findSuggestion(db, id);
      if (!row) throw new HubError('not_found', `no discovery suggestion ${id}`);
      return present(row);
    },

    async run(ctx, input) {
      const startedAt = clock.now().toISOString();
      const defaults = deps.defaults();
      let lanAddresses: string[] | null = null;
      if (input.lan) {
        if (!defaults.lan_scan) {
          throw new HubError(
            'conflict',
            'the LAN scan is off: set services.discovery_default_lan_scan to true to allow it',
          );
        }
        const expanded = expandCidr(input.lan.cidr);
        if ('error' in expanded) throw validationError('lan.cidr', expanded.error);
        lanAddresses = expanded.addresses;
      }
      await audit.recordIntent(ctx, [
        {
          action: 'discovery.run',
          targetType: 'discovery',
          detail: {
            lan: input.lan?.cidr ?? null,
            container: defaults.container,
            port_scan: defaults.port_scan,
          },
        },
      ]);

      const sessions = gateway.sessions();
      const names = await deps.assets.names(sessions.map((s) => s.assetId));
      const failed: DiscoveryRunResult['agents']['failed'] = [];
      const findings: Finding[] = [];
      let answered = 0;
      await mapLimited(sessions, agentConcurrency, async (session) => {
        try {
          const scan = await gateway.request(
            session.assetId,
            'discovery.scan',
            { container: defaults.container, port_scan: defaults.port_scan },
            { timeoutMs: agentTimeoutMs },
          );
          answered++;
          findings.push(...findingsOf(session.assetId, names.get(session.assetId) ?? session.assetId, scan));
        } catch (error) {
          failed.push({ asset_id: session.assetId, message: (error as Error).message.slice(0, 500) });
        }
      });

      let lan: DiscoveryRunResult['lan'] = null;
      if (input.lan && lanAddresses) {
        const ports = input.lan.ports ?? discoveryLanLimits.defaultPorts;
        const scanned = await scanLan(lanAddresses, {
          policy: deps.outboundPolicy(),
          ports,
          ...deps.lanScan,
        });
        const known = await knownAddresses();
        const fresh = scanned.hosts.filter((h) => !known.has(h.address));
        for (const host of fresh) {
          findings.push({
            key: `host:${host.address}`,
            kind: 'host',
            assetId: null,
            title: `${host.address} answers on TCP ${host.ports.join(', ')}`,
            detail: { address: host.address, ports: host.ports },
          });
        }
        lan = {
          cidr: input.lan.cidr,
          addresses: scanned.addresses,
          probes: scanned.probes,
          refused: scanned.refused,
          hosts_found: fresh.length,
        };
      }

      const now = clock.now().toISOString();
      const existing = await findSuggestionsByKeys(
        db,
        findings.map((f) => f.key),
      );
      const fresh: SuggestionRow[] = [];
      const seen = new Set<string>();
      await db.transaction().execute(async (trx) => {
        for (const f of findings) {
          if (seen.has(f.key)) continue;
          seen.add(f.key);
          const detail = JSON.stringify(f.detail);
          const row = existing.get(f.key);
          if (row) {
            await touchSuggestion(trx, row.id, { title: f.title, detail, last_seen_at: now });
            continue;
          }
          fresh.push({
            id: newId('discoverySuggestion', clock.now().getTime()),
            key: f.key,
            kind: f.kind,
            status: 'pending',
            asset_id: f.assetId,
            title: f.title,
            detail,
            first_seen_at: now,
            last_seen_at: now,
            decided_at: null,
            decided_by: null,
            created_asset_id: null,
          });
        }
        await insertSuggestions(trx, fresh);
      });

      events.publish('discovery.completed', {
        asset_ids: [],
        found: seen.size,
        new_suggestions: fresh.length,
        agents_answered: answered,
      });
      return {
        started_at: startedAt,
        finished_at: clock.now().toISOString(),
        agents: { asked: sessions.length, answered, failed },
        found: seen.size,
        new_suggestions: fresh.length,
        lan,
      };
    },

    async list(query, page) {
      const { rows, total } = await listSuggestions(db, query, pageWindow(page));
      return toPage(rows.map(present), total, page);
    },

    async accept(ctx, id, input) {
      const row = await loadDecidable(id);
      const decidedAt = clock.now().toISOString();
      const decidedBy = actorOf(ctx.principal).actorId;
      await db.transaction().execute(async (trx) => {
        if (
          !(await decideSuggestion(trx, id, {
            status: 'accepted',
            decided_at: decidedAt,
            decided_by: decidedBy,
            created_asset_id: null,
          }))
        )
          throw new HubError('conflict', `suggestion ${id} was decided a moment ago`);
        await audit.record(trx, ctx, {
          action: 'discovery.accept',
          targetType: 'discovery_suggestion',
          targetId: id,
          assetId: row.asset_id,
          detail: { key: row.key },
        });
      });
      if (row.kind === 'host') {
        const address = (present(row).detail.address ?? '').trim();
        try {
          const asset = await assets.create(ctx, {
            name: input.name ?? address,
            ip_addresses: [address],
            description: `Found by discovery: ${row.title}`,
          });
          await setCreatedAsset(db, id, asset.id);
        } catch (error) {
          // The asset could not be made (a name taken, say): the suggestion waits again.
          await reopenSuggestion(db, id);
          throw error;
        }
      }
      const after = await findSuggestion(db, id);
      if (!after) throw new HubError('not_found', `no discovery suggestion ${id}`);
      return present(after);
    },

    async dismiss(ctx, id) {
      const row = await loadDecidable(id);
      await db.transaction().execute(async (trx) => {
        const decided = await decideSuggestion(trx, id, {
          status: 'dismissed',
          decided_at: clock.now().toISOString(),
          decided_by: actorOf(ctx.principal).actorId,
          created_asset_id: null,
        });
        if (!decided) throw new HubError('conflict', `suggestion ${id} was decided a moment ago`);
        await audit.record(trx, ctx, {
          action: 'discovery.dismiss',
          targetType: 'discovery_suggestion',
          targetId: id,
          assetId: row.asset_id,
          detail: { key: row.key },
        });
      });
      const after = await findSuggestion(db, id);
      if (!after) throw new HubError('not_found', `no discovery suggestion ${id}`);
      return present(after);
    },
  };
}
