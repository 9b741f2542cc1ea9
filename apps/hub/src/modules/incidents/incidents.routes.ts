import { rawContext } from '../../http/raw-context.js';
import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { AlertService } from '../alerts/alerts.service.js';
import type { ReviewService } from './reviews.service.js';

export function incidentRoutes(alerts: AlertService, reviews: ReviewService) {
  return {
    'incidents.list': ({ query, ctx }) => alerts.listIncidents(ctx.principal, query, pageRequest(query)),
    'incidents.resolve': ({ params, ctx }) => alerts.resolveIncident(ctx, params.id),
    'incidents.review': ({ params, ctx }) => reviews.get(ctx, params.id),
    'incidents.replaceReview': ({ params, body, ctx }) => reviews.update(ctx, params.id, body),
    'incidents.updateReview': ({ params, body, ctx }) => reviews.update(ctx, params.id, body),
  } satisfies Handlers;
}

export function incidentRawRoutes(reviews: ReviewService) {
  return {
    'incidents.reviewMarkdown': async (request, reply) => {
      const { id } = request.params as { id: string };
      const { incidentId, text } = await reviews.markdown(rawContext(request), id);
      return reply
        .code(200)
        .type('text/markdown; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${incidentId}-review.md"`)
        .send(text);
    },
  } satisfies RawHandlers;
}
