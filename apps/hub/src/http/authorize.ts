import { isMutatingMethod, type RouteContract } from '@svc/protocol';
import { HubError } from '../platform/hub-error.js';
import {
  assetIdOf,
  canSeeAsset,
  hasScope,
  isAdmin,
  isRestricted,
  type Principal,
} from '../access/principal.js';

/**
 * Decides whether a principal may call a route, from the route's contract alone. Runs before validation and
 * before any lookup, so a refused caller learns nothing about the resource.
 */
export function authorize(
  contract: RouteContract,
  principal: Principal,
  params: Record<string, string>,
): void {
  if (contract.sessionOnly && principal.authType !== 'session') {
    throw new HubError('forbidden', 'This endpoint is for console sessions; API keys use /api/v2.');
  }
  if (principal.mustChangePassword && !contract.beforePasswordChange) {
    throw new HubError('password_change_required');
  }
  const isMutation = isMutatingMethod(contract.method) && !contract.selfService && !contract.carriesCalls;
  if (principal.role === 'viewer' && isMutation) {
    throw new HubError('read_only_role', `The viewer role cannot ${contract.method}.`);
  }
  if (principal.role === 'viewer' && contract.readsSecrets) {
    throw new HubError(
      'read_only_role',
      'The viewer role cannot read file contents, logs, or process and cron command lines: they may hold secrets.',
    );
  }
  switch (contract.auth) {
    case 'public':
    case 'authenticated':
      break;
    case 'admin':
      if (!isAdmin(principal)) throw new HubError('admin_required');
      break;
    case 'scope':
      if (!contract.scope) throw new HubError('internal_error', `route ${contract.name} has no scope`);
      if (!hasScope(principal, contract.scope)) {
        throw new HubError('insufficient_scope', `This endpoint needs the scope "${contract.scope}".`);
      }
      break;
  }
  if (contract.unrestrictedOnly && isRestricted(principal)) {
    throw new HubError('forbidden', 'A key limited to some assets cannot use this endpoint.');
  }
  if (contract.asset) {
    const raw = params[contract.asset.param] ?? '';
    if (!canSeeAsset(principal, assetIdOf(raw, contract.asset.form))) {
      throw new HubError('not_found', `no asset ${assetIdOf(raw, contract.asset.form)}`);
    }
  }
}
