import type { ExecOutcome } from '@svc/protocol';

/** What an agent answers to `exec.run`: a clean exit with no output unless told otherwise. */
export function execOutcome(overrides: Partial<ExecOutcome> = {}): ExecOutcome {
  return {
    exit_code: 0,
    signal: null,
    stdout: '',
    stderr: '',
    truncated: false,
    timed_out: false,
    duration_ms: 12,
    ...overrides,
  };
}
