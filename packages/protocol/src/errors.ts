/**
 * The error-code catalog: every error the hub returns uses one of these codes, and the code fixes the
 * HTTP status. Services throw `HubError(code)`; the catalog supplies the default message.
 */
export const errorCatalog = {
  validation: { status: 400, message: 'The request is not valid.' },
  unauthorized: { status: 401, message: 'Authentication is required: send a valid API key or session.' },
  insufficient_scope: {
    status: 403,
    message: 'The credential does not carry the scope this endpoint needs.',
  },
  read_only_role: { status: 403, message: 'The viewer role is read-only.' },
  admin_required: { status: 403, message: 'This endpoint requires the admin role.' },
  https_required: { status: 403, message: 'API keys are accepted only over HTTPS.' },
  forbidden: { status: 403, message: 'This action is not allowed.' },
  policy_disabled: { status: 403, message: 'A hub policy turns this off.' },
  webauthn_needs_hostname: {
    status: 403,
    message:
      "Passkeys cannot use an IP address as the hub's name: open the hub by one of the DNS names in its certificate (GET /api/v1/tls/info lists them).",
  },
  password_change_required: {
    status: 403,
    message: 'Choose a new password first: POST /api/auth/password with current_password and new_password.',
  },
  account_disabled: {
    status: 403,
    message: 'This account is disabled: an administrator can enable it again.',
  },
  not_found: { status: 404, message: 'Not found.' },
  method_not_allowed: { status: 405, message: 'Method not allowed on this path.' },
  asset_offline: { status: 409, message: 'The asset is offline.' },
  conflict: { status: 409, message: 'The request conflicts with the current state.' },
  payload_too_large: { status: 413, message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, message: 'Send the body as application/json.' },
  rate_limited: { status: 429, message: 'Too many requests; retry after the time in Retry-After.' },
  internal_error: { status: 500, message: 'Internal error.' },
  not_implemented: { status: 501, message: 'This endpoint is not implemented yet.' },
  upstream_error: { status: 502, message: 'The upstream service failed.' },
  unavailable: { status: 503, message: 'The service is temporarily unavailable.' },
  cluster_unavailable: {
    status: 503,
    message:
      'The hub processes cannot reach each other right now (the cluster bus is down); retry after the time in Retry-After.',
  },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;
export const errorCodes = Object.keys(errorCatalog) as ErrorCode[];

export function statusOf(code: ErrorCode): number {
  return errorCatalog[code].status;
}
