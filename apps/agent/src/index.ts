/** @svc/agent: the agent as a library, for scripts and tests that run one in-process. */
export {
  startAgent,
  runDaemon,
  buildHello,
  AgentStartError,
  type RunningAgent,
  type StartAgentOptions,
} from './main.js';
export {
  resolveSettings,
  settingDefinitions,
  type AgentSettings,
  type ResolvedSettings,
} from './config/settings.js';
export {
  readSettingsFile,
  writeSettingsFile,
  updateSettingsFile,
  defaultSettingsPath,
} from './config/settings-file.js';
export { AgentChannel, channelUrl, type ChannelEvent, type ChannelOptions } from './channel/client.js';
export { createDispatcher } from './channel/dispatch.js';
export { createHandlers } from './handlers/index.js';
export { AgentError } from './handlers/agent-error.js';
export { createPtyOpeners, type PtyOptions } from './handlers/pty.js';
export { ptyShellOptions } from './handlers/pty-settings.js';
export { runCommand } from './platform/run-command.js';
export {
  enroll,
  checkCaCertificate,
  EnrollError,
  type EnrollOptions,
  type EnrollOutcome,
} from './cli/enroll.js';
export { runCli } from './cli/program.js';
export { agentVersion } from './version.js';
