/** The Run page: a command on assets or a group, and its results (features/run). */
export const run = {
  'run.title': 'Run a command',
  'run.viewerNotice': 'Your role can read the fleet but not run commands on it.',
  'run.noGroups': 'No groups yet: {link}.',
  'run.makeGroup': 'make one',
  'run.command': 'Command',
  'run.timeout': 'Timeout (seconds, 1 to {max})',
  'run.run': 'Run',
  'run.running': 'Running…',
  'run.stopWaiting': 'Stop waiting',
  'run.stopNote':
    'Stopping the wait does not stop commands already sent: they run to their end on the agents.',
  'run.streamBroken': '{message}: the results below are what arrived.',
  'run.results': 'Results',
  'run.targets': '{n, plural, one {# target} other {# targets}}',
  'run.statusCount': '{n} {status, select, ok {ok} timeout {timeout} offline {offline} other {error}}',
  'run.summary': '{targets}: {counts}',
  'run.summaryRunning': '{summary}; {n} running',
  'run.status':
    '{status, select, ok {ok} timeout {timeout} offline {offline} error {error} other {running…}}',
  'run.exitCode': 'exit code {code}',
  'run.waiting': 'Waiting for the agent…',
  'run.truncated': 'output truncated',
  'run.truncatedTitle': 'The output was longer than the hub keeps',
  'run.leftRunning':
    'The command left {n, plural, one {# process} other {# processes}} running; the agent {killed, select, yes {ended them} other {could not end them all}}.',
  'run.noOutput': 'No output.',
};
