import { newId, type AuditEvent, type AuditQuery } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { actorOf, type ActionContext } from '../../access/principal.js';
import { countAuditEvents, insertAuditEvents, listAuditEvents, type AuditRow } from './audit.repository.js';

export interface AuditEntry {
  action: string;
  targetType?: string;
  targetId?: string;
  assetId?: string | null;
  detail?: Record<string, unknown>;
}

export interface AuditService {
  /**
   * Records an event inside the caller's transaction: if the write fails, the transaction and so the
   * mutation fail with it (ARCHITECTURE.md security rule 8).
   */
  record(trx: Executor, ctx: ActionContext | null, entry: AuditEntry): Promise<void>;
  /** Several events in one multi-row write (a fan-out audits every target), inside the caller's transaction. */
  recordMany(trx: Executor, ctx: ActionContext | null, entries: readonly AuditEntry[]): Promise<void>;
  /**
   * Writes events in their own transaction before an agent is asked to act: if the write fails, the action is
   * never sent (ARCHITECTURE.md security rule 8).
   */
  recordIntent(ctx: ActionContext, entries: readonly AuditEntry[]): Promise<void>;
  /** Events of several callers in one transaction of their own (reads recorded in batches: the MCP server's). */
  recordOfMany(items: readonly { ctx: ActionContext; entry: AuditEntry }[]): Promise<void>;
  list(ctx: ActionContext, query: AuditQuery, page: PageRequest): Promise<Page<AuditEvent>>;
  /** Events of one action since a time, across every caller (the hub's status counts MCP use with it). */
  countSince(action: string, since: Date): Promise<number>;
}

function presentAuditEvent(row: AuditRow): AuditEvent {
  let detail: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.detail);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      detail = parsed as Record<string, unknown>;
  } catch {
    detail = {};
  }
  return {
    id: row.id,
    ts: row.ts,
    actor_type: row.actor_type as AuditEvent['actor_type'],
    actor_id: row.actor_id,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    asset_id: row.asset_id,
    ip: row.ip,
    request_id: row.request_id,
    detail,
  };
}

export function createAuditService(deps: { db: Kysely<Database>; clock: Clock }): AuditService {
  const { db, clock } = deps;
  /**
   * The rows of one caller's entries. What they share is worked out once: the actor, the time, and the JSON of
   * a detail object several entries hold (a fan-out's targets share theirs).
   */
  function toRows(ctx: ActionContext | null, entries: readonly AuditEntry[]): AuditRow[] {
    const actor = ctx ? actorOf(ctx.principal) : { actorType: 'system' as const, actorId: null };
    const ts = clock.now().toISOString();
    let lastDetail: AuditEntry['detail'] | null = null;
    let lastText = '';
    return entries.map((entry) => {
      if (lastDetail === null || entry.detail !== lastDetail) {
        lastDetail = entry.detail;
        // A call an MCP tool made carries its mark, so admins can tell (and filter) what MCP clients did.
        lastText = JSON.stringify(ctx?.via ? { ...entry.detail, via: ctx.via } : (entry.detail ?? {}));
      }
      return {
        id: newId('event'),
        ts,
        actor_type: actor.actorType,
        actor_id: actor.actorId,
        action: entry.action,
        target_type: entry.targetType ?? null,
        target_id: entry.targetId ?? null,
        asset_id: entry.assetId ?? null,
        ip: ctx?.ip ?? null,
        request_id: ctx?.requestId ?? null,
        detail: lastText,
      };
    });
  }
  return {
    async record(trx, ctx, entry) {
      await insertAuditEvents(trx, toRows(ctx, [entry]));
    },
    async recordMany(trx, ctx, entries) {
      await insertAuditEvents(trx, toRows(ctx, entries));
    },
    async recordIntent(ctx, entries) {
      if (entries.length === 0) return;
      const rows = toRows(ctx, entries);
      await db.transaction().execute((trx) => insertAuditEvents(trx, rows));
    },
    async recordOfMany(items) {
      if (items.length === 0) return;
      const rows = items.flatMap(({ ctx, entry }) => toRows(ctx, [entry]));
      await db.transaction().execute((trx) => insertAuditEvents(trx, rows));
    },
    async list(ctx, query, page) {
      const allowed = ctx.principal.allowedAssets;
      const { rows, total } = await listAuditEvents(
        db,
        { ...query, visibleAssets: allowed === null ? null : [...allowed] },
        pageWindow(page),
      );
      return toPage(rows.map(presentAuditEvent), total, page);
    },
    countSince(action, since) {
      return countAuditEvents(db, action, since.toISOString());
    },
  };
}
