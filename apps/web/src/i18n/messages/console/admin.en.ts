/** The administration area's frame (features/admin): its sections and the admin-only page. */
export const admin = {
  'admin.title': 'Administration',
  'admin.nav': 'Administration',
  'admin.section':
    '{section, select, keys {API keys} users {Users} enrollment {Enrollment} tls {TLS} tailscale {Tailscale} prometheus {Prometheus} settings {Settings} audit {Audit log} other {Hub status}}',
  'admin.onlyTitle': 'Admin only',
  'admin.onlyText':
    'This area is for admins. You are signed in as {username} with the role {role}, and the hub refuses its requests to you.',
  'admin.toDashboard': 'Go to the dashboard',
  'admin.missing': 'No such administration page',
  'admin.toKeys': 'Go to the API keys',
};
