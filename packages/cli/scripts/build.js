/**
 * Builds the CLI that ships: src/main.ts and everything it uses (commander, ws, @svc/sdk, @svc/protocol)
 * bundled by esbuild into one file, dist/svc.mjs, which bin/svc.js runs with plain node: the CLI starts
 * without a TypeScript loader and installs without this repository's node_modules.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildWhenRun, bundleForNode } from '../../../scripts/node-bundle.js';

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const cliBundle = path.join(cliDir, 'dist', 'svc.mjs');

/**
 * Builds dist/svc.mjs (scripts/node-bundle.js: written whole, never half a file), unless nothing it reads
 * changed since the last build (`force` builds anyway).
 * @param {{ force?: boolean }} [options]
 */
export async function buildCli(options = {}) {
  return bundleForNode({
    name: 'cli',
    script: fileURLToPath(import.meta.url),
    entry: path.join(cliDir, 'src/main.ts'),
    outfile: cliBundle,
    force: options.force === true,
  });
}

await buildWhenRun(import.meta.url, 'svc', cliBundle, buildCli);
