import { execOutcome } from './exec-outcome.js';
import type { FakeGateway } from './fake-gateway.js';

export interface ExecCountingAgent {
  /** How many `exec.run` requests the agent has answered. */
  readonly calls: number;
}

/**
 * Connects a fake agent for `assetId` that answers every `exec.run` with a clean exit and counts them; its
 * output is `stdout(command, call)` (the call counted from 1), none unless told.
 */
export function connectExecCountingAgent(
  gateway: FakeGateway,
  assetId: string,
  stdout: (command: string, call: number) => string = () => '',
): ExecCountingAgent {
  let calls = 0;
  gateway.connect(assetId, {
    handlers: {
      'exec.run': (p) => {
        calls += 1;
        return execOutcome({ stdout: stdout(p.command, calls) });
      },
    },
  });
  return {
    get calls() {
      return calls;
    },
  };
}
