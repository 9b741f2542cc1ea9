/**
 * Vitest global setup: the tests that start the real agent through bin/svc-agent.js (its launcher test,
 * the hub's end-to-end tests) run the precompiled bundle, as shipped. Rebuilding it here when a source
 * changed since `npm install` keeps them on the code as it is now, and off the tsx fallback.
 */
import { buildAgentBundleIfStale } from './build.js';

export async function setup() {
  await buildAgentBundleIfStale();
}
