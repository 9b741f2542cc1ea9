import os from 'node:os';
import { defineConfig } from 'vitest/config';

/*
 * Three tiers, each runnable alone (`npm run test:unit`, `test:hub`, `test:e2e`); `npm test` runs all three.
 * - e2e: tests that spawn the hub or the agent as a process, on the built output. Named `*.e2e.test.ts` or
 *   kept in an `e2e/` folder; the console's browser tests (apps/web/e2e, chromium) too. Only this tier
 *   builds (scripts/build.js as its global setup).
 * - hub: tests that start a hub in-process (startTestHub, app.inject()): the hub's own tests and the
 *   packages that drive it (sdk, testkit).
 * - unit: pure modules: protocol, the agent, the console's pure modules, and the hub's modules listed in
 *   `pureHubTests`. The unit tier
 *   refuses startTestHub (SVC_TEST_TIER), so a hub test placed here fails rather than hiding in it.
 * A new test under apps/hub lands in `hub` by default; a pure one may be added to `pureHubTests`.
 */
const e2eTests = [
  'apps/*/src/e2e/**/*.test.ts',
  'apps/*/src/**/*.e2e.test.ts',
  'packages/*/src/**/*.e2e.test.ts',
  'apps/web/e2e/**/*.test.ts',
];

const hubTests = [
  'apps/hub/src/**/*.test.ts',
  'packages/sdk/src/**/*.test.ts',
  'packages/testkit/src/**/*.test.ts',
];

const pureHubTests = [
  'apps/hub/src/modules/prometheus/remote-write/encoding.test.ts',
  'apps/hub/src/modules/prometheus/targets.test.ts',
  'apps/hub/src/agents/byte-budget.test.ts',
  'apps/hub/src/agents/streams.test.ts',
  // Upstream schemas and their mapping to our types (TrueNAS, Portainer, Home Assistant, Tailscale).
  'apps/hub/src/connectors/{nas,stacks,homeauto,meshvpn}/*.{connector,mapping}.test.ts',
  'apps/hub/src/agents/channel-failures.test.ts',
  'apps/hub/src/agents/agent-call.test.ts',
  'apps/hub/src/layers.test.ts',
  'apps/hub/src/data-owners.test.ts',
  'apps/hub/src/modules/alerts/alert-evaluation.test.ts',
  'apps/hub/src/modules/dependencies/blast-radius.test.ts',
  'apps/hub/src/modules/incidents/review-{timeline,markdown}.test.ts',
  'apps/hub/src/modules/assets/asset-list-cache.test.ts',
  'apps/hub/src/modules/auth/totp.test.ts',
  'apps/hub/src/modules/discovery/lan-scan.test.ts',
  'apps/hub/src/modules/exec/result-budget.test.ts',
  'apps/hub/src/modules/metrics/metrics-budget.test.ts',
  'apps/hub/src/modules/maintenance/window-time.test.ts',
  'apps/hub/src/modules/notifications/routing.test.ts',
  'apps/hub/src/modules/webhooks/delivery-queue.test.ts',
  'apps/hub/src/modules/module.test.ts',
  'apps/hub/src/platform/bounded-work-queue.test.ts',
  'apps/hub/src/config/env.nats.test.ts',
  // Paths the docs name exist (reads files, starts nothing).
  'apps/hub/src/docs-paths.test.ts',
  'apps/hub/src/platform/db/paging.test.ts',
  'apps/hub/src/platform/db/write-versions.test.ts',
  'apps/hub/src/platform/logger.test.ts',
  'apps/hub/src/platform/refusal-log.test.ts',
  'apps/hub/src/platform/retention.test.ts',
  'apps/hub/src/platform/secret-box.test.ts',
  'apps/hub/src/platform/settle-within.test.ts',
  'apps/hub/src/platform/tls/built-in-ca.test.ts',
  'apps/hub/src/platform/tls/name-constraints.test.ts',
  // Every contract's schemas compile (Ajv, fast-json-stringify): no hub.
  'apps/hub/src/http/schema-compiles.test.ts',
];

const unitTests = [
  'packages/protocol/src/**/*.test.ts',
  // The svc CLI's pure parts: arguments, output, exit codes, config permissions, completion.
  'packages/cli/src/**/*.test.ts',
  'apps/agent/src/**/*.test.ts',
  // The console's pure modules (paths, series, formats, selections, commands, value parsing): no browser.
  'apps/web/src/**/*.test.ts',
  ...pureHubTests,
];

/** Drops the PostgreSQL schemas a file's test hubs left for reuse, when the file ends. */
const hubSetup = 'packages/testkit/src/vitest-setup.ts';

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default is one worker less than the cores: on CI's two, one file at a time, while most hub and
    // e2e files spend much of their time waiting (PostgreSQL, child processes, timers). Decision 0045 (its
    // addendum: three on two cores were tried, and lost more to timing than they gained).
    maxWorkers: Math.max(2, os.availableParallelism()),
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: unitTests,
          exclude: e2eTests,
          env: { SVC_TEST_TIER: 'unit' },
          // Files share their worker's loaded modules (decision 0066): the import of the graph is paid once per
          // worker, not once per file. Tests keep no state in modules between files.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'hub',
          include: hubTests,
          exclude: [...e2eTests, ...pureHubTests],
          setupFiles: [hubSetup],
          // As the unit tier: each test starts its own hub; the hub's modules load once per worker.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: e2eTests,
          // Browsers and whole processes: seconds each when idle, twice that on a loaded machine (issue 30:
          // no test within a factor of two of its timeout).
          testTimeout: 60_000,
          setupFiles: [hubSetup],
          // Builds the hub and the agent bundle, so the tests that start them as processes run what ships.
          globalSetup: ['scripts/build.js'],
          // As the other tiers (decision 0066, addendum): most files import the testkit, and with it the hub's
          // sources, which a worker then loads once rather than once per file. Tests keep no module state.
          isolate: false,
        },
      },
    ],
  },
});
