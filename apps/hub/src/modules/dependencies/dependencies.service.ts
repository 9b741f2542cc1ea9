/**
 * The infrastructure graph of what the caller may see, and the links admins declare
 * (docs/decisions/0023-dependency-graph.md). Edge sources are inputs: another area (containers on hosts) adds
 * one without this service changing.
 */
import {
  newId,
  type BlastRadius,
  type DependencyGraph,
  type DependencyLink,
  type DependencyLinkCreate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { systemOwnerContext, type ActionContext, type Principal } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { AssetService } from '../assets/assets.service.js';
import { readConnectorFacts } from '../assets/connector-assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { blastRadius } from './blast-radius.js';
import {
  backupRelations,
  buildGraph,
  connectorHierarchy,
  declaredEdges,
  hostContainers,
  type EdgeSource,
  type GraphAsset,
  type GraphContainer,
} from './dependency-graph.js';
import {
  deleteLink,
  deleteLinksOf,
  findLink,
  findLinkBetween,
  insertLink,
  listLinks,
  type DependencyLinkRow,
} from './dependencies.repository.js';

/** The graph is drawn whole: past this many assets it shows the first ones by name. */
const maxNodes = 5_000;
const maxLinks = 20_000;
/** How long the fleet's graph behind notification counts is reused: a burst of alerts reads it once. */
const countGraphTtlMs = 15_000;

export interface DependencyService {
  graph(principal: Principal): Promise<DependencyGraph>;
  createLink(ctx: ActionContext, input: DependencyLinkCreate): Promise<DependencyLink>;
  deleteLink(ctx: ActionContext, id: string): Promise<DependencyLink>;
  /** What depends on the asset, on the graph the principal sees (containers included). */
  blastRadius(principal: Principal, assetId: string, maxDepth?: number): Promise<BlastRadius>;
  /**
   * How many assets depend on this one across the whole fleet (containers not asked for: no agent is called),
   * for notifications; from a graph at most 15 s old.
   */
  dependentCount(assetId: string): Promise<{ total: number; direct: number }>;
  /** An asset was deleted: its declared links go with it. */
  forgetAsset(assetId: string): Promise<void>;
}

function present(row: DependencyLinkRow): DependencyLink {
  return {
    id: row.id,
    from: row.from_asset_id,
    to: row.to_asset_id,
    label: row.label,
    created_at: row.created_at,
  };
}

/** What the containers area provides: the containers of the online hosts a principal may see. */
export interface ContainerInventory {
  inventory(
    principal: Principal,
  ): Promise<{ asset_id: string; containers: { id: string; name: string; state: string }[] }[]>;
}

export function createDependencyService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  assets: Pick<AssetService, 'matching' | 'missingIds'>;
  /** More edge sources. */
  edgeSources?: readonly EdgeSource[];
  /** Containers on hosts (`runs`), when the containers area is wired. */
  containers?: ContainerInventory;
}): DependencyService {
  const { db, clock, audit, assets } = deps;
  let countGraph: { at: number; graph: Promise<DependencyGraph> } | null = null;

  async function buildFor(principal: Principal, withContainers: boolean): Promise<DependencyGraph> {
    const visible = principal.allowedAssets === null ? null : [...principal.allowedAssets];
    const { rows } = await assets.matching(visible, '', { limit: maxNodes, offset: 0 });
    const graphAssets: GraphAsset[] = rows.map((row) => ({
      id: row.id,
      name: row.name,
      source: row.source,
      status: row.status,
      hostname: row.hostname,
      connectorKind: row.source === 'connector' ? (row.connector_kind ?? null) : null,
      parentId: row.parent_asset_id ?? null,
      facts: readConnectorFacts(row.connector_facts),
    }));
    const links = (await listLinks(db, maxLinks)).map((l) => ({
      id: l.id,
      from: l.from_asset_id,
      to: l.to_asset_id,
      label: l.label,
    }));
    const hosts = deps.containers && withContainers ? await deps.containers.inventory(principal) : [];
    const containers: GraphContainer[] = hosts.flatMap((h) =>
      h.containers.map((c) => ({ id: c.id, assetId: h.asset_id, name: c.name, state: c.state })),
    );
    return buildGraph(
      graphAssets,
      [
        connectorHierarchy,
        backupRelations,
        hostContainers(containers),
        ...(deps.edgeSources ?? []),
        declaredEdges(links),
      ],
      principal.allowedAssets,
      containers,
    );
  }

  return {
    graph: (principal) => buildFor(principal, true),

    async blastRadius(principal, assetId, maxDepth) {
      const graph = await buildFor(principal, true);
      // The guard has checked allowed_assets; an asset beyond the graph's bound has no dependents drawn.
      if (!graph.nodes.some((n) => n.id === assetId) && (await assets.missingIds([assetId])).length > 0) {
        throw new HubError('not_found', `no asset ${assetId}`);
      }
      return blastRadius(graph, assetId, maxDepth === undefined ? {} : { maxDepth });
    },

    async dependentCount(assetId) {
      const now = clock.now().getTime();
      if (countGraph === null || now - countGraph.at > countGraphTtlMs) {
        const graph = buildFor(systemOwnerContext().principal, false);
        countGraph = { at: now, graph };
        // A failed read is not kept: the next count tries again.
        graph.catch(() => {
          if (countGraph?.graph === graph) countGraph = null;
        });
      }
      const found = blastRadius(await countGraph.graph, assetId);
      return { total: found.total, direct: found.direct };
    },

    async createLink(ctx, input) {
      if (input.from === input.to) throw validationError('to', 'an asset cannot depend on itself');
      const missing = await assets.missingIds([input.from, input.to]);
      if (missing.includes(input.from)) throw validationError('from', `no asset ${input.from}`);
      if (missing.includes(input.to)) throw validationError('to', `no asset ${input.to}`);
      if (await findLinkBetween(db, input.from, input.to)) {
        throw new HubError('conflict', `${input.from} is already linked to ${input.to}`);
      }
      const row: DependencyLinkRow = {
        id: newId('dependencyLink'),
        from_asset_id: input.from,
        to_asset_id: input.to,
        label: input.label ?? null,
        created_at: clock.now().toISOString(),
      };
      countGraph = null;
      await db.transaction().execute(async (trx) => {
        await insertLink(trx, row);
        await audit.record(trx, ctx, {
          action: 'dependency.linked',
          targetType: 'dependency_link',
          targetId: row.id,
          assetId: row.from_asset_id,
          detail: { from: row.from_asset_id, to: row.to_asset_id },
        });
      });
      return present(row);
    },

    async deleteLink(ctx, id) {
      const row = await findLink(db, id);
      if (!row) throw new HubError('not_found', `no link ${id}`);
      countGraph = null;
      await db.transaction().execute(async (trx) => {
        await deleteLink(trx, id);
        await audit.record(trx, ctx, {
          action: 'dependency.unlinked',
          targetType: 'dependency_link',
          targetId: id,
          assetId: row.from_asset_id,
          detail: { from: row.from_asset_id, to: row.to_asset_id },
        });
      });
      return present(row);
    },

    forgetAsset: (assetId) => deleteLinksOf(db, assetId),
  };
}
