import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Precompiles the agent when its sources changed, so the tests run the bundle that ships.
    globalSetup: ['apps/agent/scripts/test-global-setup.js'],
  },
});
