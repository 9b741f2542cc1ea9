/** The bulk service form on a group's page (features/bulk). */
export const bulk = {
  'bulk.title': 'Service on every member',
  'bulk.service': 'Service',
  'bulk.action': 'Action',
  'bulk.actionName': '{action, select, start {start} stop {stop} other {restart}}',
  'bulk.sending': 'Sending…',
  'bulk.apply': 'Apply to the group',
  'bulk.summary':
    '{total, plural, one {# target} other {# targets}}: {ok} ok, {offline} offline, {error} error',
  'bulk.results': 'Service results',
  'bulk.asset': 'Asset',
  'bulk.result': 'Result',
  'bulk.stateOrReason': 'State or reason',
  'bulk.status': '{status, select, ok {ok} offline {offline} other {error}}',
};
