/** Runtime settings by domain and the hub's restart (features/settings). */
export const settings = {
  'settings.title': 'Settings',
  'settings.loading': 'Loading the settings',
  'settings.intro':
    'A value set here wins over the environment, which wins over the default. Policies apply at once; settings read at start wait for a restart.',
  'settings.domain':
    '{domain, select, enrollment {Enrollment} connectors {Connectors} retention {Retention} runtime {Runtime and policies} notifications {Notifications} other {{domain}}}',
  'settings.domainLower':
    '{domain, select, enrollment {enrollment} connectors {connectors} retention {retention} runtime {runtime and policies} notifications {notifications} other {{domain}}}',
  'settings.domainAbout':
    '{domain, select, enrollment {Agent bootstrap: defaults of new enrollment tokens.} connectors {Collector behaviour: service discovery defaults sent to agents when they connect.} retention {How long history is kept.} runtime {Behaviour defaults, policy switches and rate limits.} notifications {Alert routing and escalation.} other {{domain}}}',
  'settings.domainForm': '{domain} settings',
  'settings.editDomain': 'Edit {domain} settings',
  'settings.saveDomain': 'Save {domain}',
  'settings.column': '{column, select, setting {Setting} value {Value} other {Source}}',
  'settings.source': '{source, select, api {api} env {env} other {default}}',
  'settings.envVar': 'env var {name}',
  'settings.switch': '{on, select, yes {on} other {off}}',
  'settings.hint':
    'Default {value}{env, select, none {} other {, env {env}}}{restart, select, yes {; applied at restart} other {}}.',
  'settings.clear': 'Clear the API value ({env, select, yes {env or default} other {default}} applies)',
  'settings.restartToApply': 'restart to apply',
  'settings.restartToApplyTitle': 'Read at start: a change applies after a restart',
  'settings.waitsRestart': 'waits for a restart',
  'settings.saved': 'Saved {changed}.',
  'settings.savedNothing': 'Saved with no change.',
  'settings.appliesAfterRestart': '{keys} {n, plural, one {applies} other {apply}} after a restart.',
  'settings.restart': 'Restart',
  'settings.pending': '{n, plural, one {One setting waits} other {# settings wait}} for a restart: {keys}.',
  'settings.noPending': 'No setting waits for a restart.',
  'settings.restarting': 'The hub is restarting; waiting for it to answer…',
  'settings.back': 'The hub restarted and answers again.',
  'settings.restartHub': 'Restart the hub',
  'settings.restartTitle': 'Restart the hub?',
  'settings.restartNow': 'Restart now',
  'settings.restartText':
    'The hub stops serving for a few seconds: agents reconnect, commands in flight are cut off, and settings read at start take their new values.',
  'settings.noAnswer': 'The hub did not answer again within {seconds} s. Check its log, then reload.',
};
