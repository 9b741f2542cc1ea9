import type { EventPayload } from '@svc/protocol';

/**
 * The alerts module's payload for `alert.fired` (and `alert.resolved`): the asset it concerns, its rule,
 * severity and summary. For tests that publish an alert without raising one.
 */
export function alertPayload(alertId: string): EventPayload<'alert.fired'> {
  return {
    asset_ids: ['ast_notified'],
    asset_id: 'ast_notified',
    alert_id: alertId,
    rule_id: 'arl_notified',
    severity: 'warning',
    summary: `test alert ${alertId}`,
  };
}
