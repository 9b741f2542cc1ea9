/**
 * Incident reviews (decision 0080): the timeline read from the alerts module (the incident and its alerts)
 * and the audit trail (the asset's entries in the window, for callers that may read it), and what people
 * write, kept in `incident_reviews`. A caller who may not see the incident's asset gets 404, as for the
 * incident itself. Writes are audited and published as `incident.review_updated`.
 */
import { reviewLimits, type FollowUp, type IncidentReview, type IncidentReviewUpdate } from '@svc/protocol';
import type { Kysely } from 'kysely';
import { actorOf, hasScope, type ActionContext } from '../../access/principal.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { AlertService } from '../alerts/alerts.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { reviewMarkdown } from './review-markdown.js';
import { assembleTimeline, reviewWindow } from './review-timeline.js';
import { findReview, saveReview, type IncidentReviewRow } from './reviews.repository.js';

export interface ReviewService {
  get(ctx: ActionContext, incidentId: string): Promise<IncidentReview>;
  /** PUT gives every field, PATCH some: the ones given replace what was written. */
  update(ctx: ActionContext, incidentId: string, input: IncidentReviewUpdate): Promise<IncidentReview>;
  markdown(ctx: ActionContext, incidentId: string): Promise<{ incidentId: string; text: string }>;
}

/** Alerts of one incident read at most; an incident past it says so in its note. */
const maxAlerts = 200;

function followUpsOf(row: IncidentReviewRow | undefined): FollowUp[] {
  if (!row) return [];
  try {
    const parsed: unknown = JSON.parse(row.follow_ups);
    if (!Array.isArray(parsed)) return [];
    return parsed.flatMap((item: unknown) => {
      if (typeof item !== 'object' || item === null) return [];
      const { text, done } = item as Record<string, unknown>;
      return typeof text === 'string' && typeof done === 'boolean' ? [{ text, done }] : [];
    });
  } catch {
    return [];
  }
}

export function createReviewService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  alerts: Pick<AlertService, 'incidentWithAlerts'>;
}): ReviewService {
  const { db, clock, audit, events, alerts } = deps;

  async function read(ctx: ActionContext, incidentId: string): Promise<IncidentReview> {
    const { incident, alerts: rows } = await alerts.incidentWithAlerts(ctx.principal, incidentId, maxAlerts);
    const row = await findReview(db, incident.id);
    const window = reviewWindow(incident, clock.now(), reviewLimits.marginMinutes);
    let auditEntries = null;
    if (hasScope(ctx.principal, 'audit:read')) {
      const page = await audit.list(
        ctx,
        { asset_id: incident.asset_id, since: window.from, until: window.to },
        { page: 1, perPage: reviewLimits.timelineEntries },
      );
      auditEntries = { entries: page.items, total: page.meta.total };
    }
    const assembled = assembleTimeline({
      incident,
      alerts: rows,
      alertTotal: incident.alert_count,
      audit: auditEntries,
      limit: reviewLimits.timelineEntries,
    });
    return {
      incident,
      summary: row?.summary ?? '',
      cause: row?.cause ?? '',
      follow_ups: followUpsOf(row),
      updated_at: row?.updated_at ?? null,
      updated_by: row?.updated_by ?? null,
      window,
      timeline: assembled.timeline,
      timeline_total: assembled.total,
      audit_included: auditEntries !== null,
      note: assembled.note,
    };
  }

  return {
    get: read,

    async update(ctx, incidentId, input) {
      // The incident first: a caller who may not see it learns nothing, and writes nothing.
      const { incident } = await alerts.incidentWithAlerts(ctx.principal, incidentId, 0);
      const fields = Object.keys(input).sort();
      await db.transaction().execute(async (trx) => {
        const current = await findReview(trx, incident.id);
        const row: IncidentReviewRow = {
          incident_id: incident.id,
          summary: input.summary ?? current?.summary ?? '',
          cause: input.cause ?? current?.cause ?? '',
          follow_ups: JSON.stringify(input.follow_ups ?? followUpsOf(current)),
          updated_at: clock.now().toISOString(),
          updated_by: actorOf(ctx.principal).actorId,
        };
        await saveReview(trx, row);
        await audit.record(trx, ctx, {
          action: 'incident.review_updated',
          targetType: 'incident',
          targetId: incident.id,
          assetId: incident.asset_id,
          detail: { fields },
        });
      });
      events.publish('incident.review_updated', {
        asset_ids: [incident.asset_id],
        incident_id: incident.id,
        asset_id: incident.asset_id,
        fields,
      });
      return read(ctx, incident.id);
    },

    async markdown(ctx, incidentId) {
      const review = await read(ctx, incidentId);
      return { incidentId: review.incident.id, text: reviewMarkdown(review) };
    },
  };
}
