import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/*/src/**/*.test.ts', 'packages/*/src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Builds the hub and the agent bundle, so the tests that start them as processes run what ships.
    globalSetup: ['scripts/build.js'],
  },
});
