/** The enrollment tokens page (features/enrollment), under Administration. */
export const enrollment = {
  'enrollment.state': '{state, select, revoked {revoked} usedUp {used up} expired {expired} other {active}}',
  'enrollment.createTitle': 'Create an enrollment token',
  'enrollment.create': 'Create token',
  'enrollment.creating': 'Creating…',
  'enrollment.name': 'Name',
  'enrollment.nameHint': 'What it is for: a machine, a batch, a site.',
  'enrollment.lifetime': 'Lifetime in hours',
  'enrollment.lifetimeHint': 'Empty: the hub’s default (setting {setting}).',
  'enrollment.uses': 'Enrollments allowed',
  'enrollment.usesHint': 'Empty: the hub’s default (setting {setting}).',
  'enrollment.createdTitle': 'Token {name} created',
  'enrollment.shownOnce':
    'The token is shown only this once. It allows {uses, plural, one {# enrollment} other {# enrollments}} until {until}.',
  'enrollment.command': 'Enroll command',
  'enrollment.runOwnCa':
    'Run it on the machine (svc-agent installed), then {run}. {flag} pins the hub’s own CA, so the agent trusts this hub and no other.',
  'enrollment.runSystemCa':
    'This hub’s certificate is not from its own CA: the agent checks it against the machine’s system CAs.',
  'enrollment.token': 'Token',
  'enrollment.done': 'Done',
  'enrollment.title': 'Enrollment tokens',
  'enrollment.intro':
    'A machine joins the hub once with a token: {command} exchanges it for its own credential. Tokens expire and allow a fixed number of enrollments.',
  'enrollment.loading': 'Loading the enrollment tokens',
  'enrollment.none': 'No enrollment tokens',
  'enrollment.noneText': 'Create one to add a machine with an agent.',
  'enrollment.stateHeader': 'State',
  'enrollment.used': 'Used',
  'enrollment.expires': 'Expires',
  'enrollment.created': 'Created',
  'enrollment.usedOf': '{uses} of {max}',
  'enrollment.revoke': 'Revoke',
  'enrollment.revokeNamed': 'Revoke {name}',
  'enrollment.revokeTitle': 'Revoke the token {name}?',
  'enrollment.revokeToken': 'Revoke token',
  'enrollment.revokeText':
    'No machine can enroll with it any more. Machines that enrolled with it keep their own credentials.',
};
