/**
 * Vitest hooks around startTestHub. Kept out of the package's main entry (it is `@svc/testkit/vitest`) so
 * that benchmarks, which use the fleet simulator, never load vitest.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { startTestHub, type TestHub, type TestHubOptions } from './hub-harness.js';

/**
 * Starts a test hub before the tests of the enclosing describe block (or file) and closes it after them.
 * `per-block` shares one hub, so what earlier tests wrote stays; `per-test` gives every test a fresh one.
 * Returns a getter for the running hub; calling it outside a test throws.
 */
export function useTestHub(
  options: TestHubOptions = {},
  lifetime: 'per-block' | 'per-test' = 'per-block',
): () => TestHub {
  let t: TestHub | undefined;
  const start = async () => {
    t = await startTestHub(options);
  };
  const close = async () => {
    await t?.close();
    t = undefined;
  };
  if (lifetime === 'per-block') {
    beforeAll(start);
    afterAll(close);
  } else {
    beforeEach(start);
    afterEach(close);
  }
  return () => {
    if (!t) throw new Error('hub not started');
    return t;
  };
}
