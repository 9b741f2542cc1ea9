/**
 * The vocabularies and bounds of service checks (decision 0079), apart from their routes: the agent channel's
 * `check.run` (agent-messages.ts) and the shared probe (node/check-probes.ts) read them without importing the
 * REST contract, which itself imports the channel's catalog.
 */
export const checkKinds = ['http', 'tcp', 'ping'] as const;
export type CheckKind = (typeof checkKinds)[number];

/** `unknown` until the first run; then the last run's outcome. */
export const checkStatuses = ['unknown', 'up', 'down'] as const;
export type CheckStatus = (typeof checkStatuses)[number];

export const checkLimits = {
  minIntervalSeconds: 10,
  maxIntervalSeconds: 86_400,
  defaultIntervalSeconds: 60,
  maxTimeoutSeconds: 60,
  defaultTimeoutSeconds: 10,
  /** Checks in the hub: each is a small row, but each also runs every interval. */
  checks: 1000,
  targetLength: 2048,
  expectedBodyLength: 1024,
  expectedStatuses: 20,
  /** Bytes of a response body read to look for `expected_body` (the rest is not read). */
  bodyReadBytes: 65_536,
  /** Results kept per check, newest first (the oldest go at each run). */
  resultsPerCheck: 2000,
  /** Results older than this go whatever their number (uptime looks back 7 days). */
  resultRetentionDays: 8,
  defaultCertWarnDays: 14,
  maxCertWarnDays: 365,
  /** Checks running at once in the hub; the rest wait for a slot. */
  concurrency: 16,
  errorLength: 512,
} as const;
