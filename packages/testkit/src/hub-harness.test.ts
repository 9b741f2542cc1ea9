import { afterEach, expect, it, vi } from 'vitest';
import { startTestHub } from './hub-harness.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

it('refuses to start a hub in the unit tier, so a hub test cannot hide there', async () => {
  vi.stubEnv('SVC_TEST_TIER', 'unit');
  await expect(startTestHub()).rejects.toThrow(/unit tier/);
});
