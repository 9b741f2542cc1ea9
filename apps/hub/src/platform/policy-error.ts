import { HubError } from './hub-error.js';

/** What each policy (spec 2.7) turns off, for its refusal. */
const policyWhat = {
  'policy.interactive_enabled': 'interactive sessions are',
  'policy.structured_enabled': 'structured commands (exec, saved actions, schedules) are',
  'policy.mcp_enabled': 'the MCP server is',
} as const;

/** The 403 a refused call gets while a hub policy is off, naming the policy's key. */
export function policyDisabled(key: keyof typeof policyWhat): HubError {
  return new HubError('policy_disabled', `${policyWhat[key]} turned off by the hub policy ${key}`);
}

/**
 * The close reason of every terminal and desktop attached when `policy.interactive_enabled` is turned off
 * (with close code 4003, `sessionCloseCodes.policyDisabled`): one wording for both.
 */
export const interactiveTurnedOff = 'interactive sessions were turned off';
