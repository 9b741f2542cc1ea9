/**
 * Builds the agent that ships: src/cli/main.ts and everything it uses (ws, commander, typebox,
 * @svc/protocol) bundled by esbuild into dist/svc-agent.mjs, which bin/svc-agent.js runs with plain node, and
 * dist/chunks/*.mjs: what the agent imports only when a request first needs it (files, exec, containers,
 * terminals…; decision 0067), split out so that an idle agent never loads it. No dependencies are left, so
 * what `npm pack -w @svc/agent` puts in the package installs on a machine without this repository. Resident
 * memory: docs/BENCHMARKS.md, "agent".
 *
 * Plain JavaScript so that it runs without a loader: `npm install` runs it (the root `postinstall`, through
 * `npm run build`), so do `npm start`, `npm pack` and the test run's global setup; by hand: `npm run build`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWhenRun, bundleForNode } from '../../../scripts/node-bundle.js';

const agentDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bundleFile = path.join(agentDir, 'dist', 'svc-agent.mjs');

/**
 * Builds dist/svc-agent.mjs (scripts/node-bundle.js: written whole, never half a file), unless nothing it reads
 * changed since the last build (`force` builds anyway).
 * @param {{ force?: boolean }} [options]
 */
export async function buildAgentBundle(options = {}) {
  return bundleForNode({
    name: 'agent',
    script: fileURLToPath(import.meta.url),
    entry: path.join(agentDir, 'src/cli/main.ts'),
    outfile: bundleFile,
    // Areas the idle agent does not use (containers, terminals, files…) load from dist/chunks when first used.
    chunks: 'chunks',
    // ws requires zlib for permessage-deflate, which the agent's channel turns off.
    onFirstUse: ['zlib'],
    force: options.force === true,
  });
}

await buildWhenRun(import.meta.url, 'svc-agent', bundleFile, buildAgentBundle);
