/**
 * power.reboot / power.shutdown through systemd (`systemctl reboot|poweroff`), else `shutdown -r|-h now`;
 * argv only. Refused with `unsupported` when the agent's settings do not allow power actions: the local
 * development agent and every test agent run with allow_power_actions=false.
 */
import { existsSync } from 'node:fs';
import {
  CommandMissingError,
  runCommand as defaultRunCommand,
  type RunCommand,
} from '../platform/run-command.js';
import { AgentError } from './agent-error.js';
import type { HandlerMap } from './types.js';

export const powerDisabledMessage = 'power actions are disabled on this agent';

export interface PowerOptions {
  isAllowed: () => boolean;
  runCommand?: RunCommand;
  isSystemdRunning?: () => boolean;
}

export function createPowerHandlers(
  options: PowerOptions,
): Pick<HandlerMap, 'power.reboot' | 'power.shutdown'> {
  const run = options.runCommand ?? defaultRunCommand;
  const isSystemdRunning = options.isSystemdRunning ?? (() => existsSync('/run/systemd/system'));

  async function power(kind: 'reboot' | 'poweroff'): Promise<{ accepted: boolean }> {
    if (!options.isAllowed()) throw new AgentError('unsupported', powerDisabledMessage);
    const [file, args] = isSystemdRunning()
      ? ['systemctl', [kind]]
      : ['shutdown', [kind === 'reboot' ? '-r' : '-h', 'now']];
    let result;
    try {
      // systemctl returns once the job is queued, so the result still reaches the hub before we go down.
      result = await run(file, args, { timeoutMs: 30_000 });
    } catch (error) {
      if (error instanceof CommandMissingError)
        throw new AgentError('unsupported', `${file} is not available on this host`);
      throw error;
    }
    if (result.code !== 0)
      throw new AgentError(
        'failed',
        `${file} ${args.join(' ')} failed: ${result.stderr.trim().slice(0, 500)}`,
      );
    return { accepted: true };
  }

  return { 'power.reboot': () => power('reboot'), 'power.shutdown': () => power('poweroff') };
}
