/**
 * credential.rotate: the hub hands over a new credential on the live channel. It is saved to the settings
 * file (atomically) before the agent answers `saved: true`, so the hub only retires the old one once the new
 * one survives a restart.
 */
import { agentCredentialPattern } from '@svc/protocol';
import { AgentError } from './agent-error.js';
import type { HandlerMap } from './types.js';

export function createCredentialHandlers(
  save: (credential: string) => Promise<void>,
): Pick<HandlerMap, 'credential.rotate'> {
  return {
    'credential.rotate': async ({ credential }) => {
      if (!agentCredentialPattern.test(credential))
        throw new AgentError('invalid_argument', 'not an agent credential');
      try {
        await save(credential);
      } catch (error) {
        throw new AgentError('failed', `cannot save the new credential: ${(error as Error).message}`);
      }
      return { saved: true };
    },
  };
}
