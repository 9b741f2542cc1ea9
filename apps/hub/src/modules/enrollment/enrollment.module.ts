import { defineModule } from '../module.js';
import { enrollmentRoutes } from './enrollment.routes.js';
import { createEnrollmentService, type EnrollmentServiceDeps } from './enrollment.service.js';

/**
 * Enrollment: the tokens admins make, the enrollment an agent makes with one (its asset, its credential, the
 * CA), and the rotation and revocation of agent credentials the agents module answers.
 */
export function createEnrollmentModule(deps: EnrollmentServiceDeps) {
  const enrollment = createEnrollmentService(deps);
  return defineModule({
    name: 'enrollment',
    services: { enrollment },
    handlers: enrollmentRoutes(enrollment),
  });
}
