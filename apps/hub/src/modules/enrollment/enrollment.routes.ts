import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { EnrollmentService } from './enrollment.service.js';

export function enrollmentRoutes(enrollment: EnrollmentService) {
  return {
    'enrollment.create': ({ body, ctx }) => enrollment.createToken(ctx, body),
    'enrollment.list': ({ query }) => enrollment.listTokens(pageRequest(query)),
    'enrollment.revoke': ({ params, ctx }) => enrollment.revokeToken(ctx, params.id),
    'enrollment.enroll': ({ body, ctx }) => enrollment.enroll(ctx, body),
  } satisfies Handlers;
}
