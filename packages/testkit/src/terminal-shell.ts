/**
 * The shell a test's agent runs its terminals in (decision 0064): `/bin/sh`, not as a login shell, so none of
 * the machine's start-up files run (~/.profile, ~/.bashrc: a version manager there can take a minute) and a
 * test's terminal starts in the same time on every machine. Give it to every agent process a test starts
 * (svc-agent's environment, or the hub's for its local agent: it passes SVC_AGENT_* on).
 */
export const testTerminalEnvironment = {
  SVC_AGENT_SHELL: '/bin/sh',
  SVC_AGENT_SHELL_LOGIN: 'false',
} as const;
