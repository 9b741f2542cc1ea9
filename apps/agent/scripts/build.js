/**
 * Builds the agent that ships: src/cli/main.ts and everything it uses (ws, commander, typebox,
 * @svc/protocol) bundled by esbuild into one file, dist/svc-agent.mjs, which bin/svc-agent.js runs with plain
 * node. One file with no dependencies left is what `npm pack -w @svc/agent` puts in the package, so the agent
 * installs on a machine without this repository. Under a TypeScript loader the same code held about 145 MB
 * resident; bundled, about 56 MB (docs/BENCHMARKS.md, "agent").
 *
 * Plain JavaScript so that it runs without a loader: `npm install` runs it (the root `postinstall`, through
 * `npm run build`), so do `npm start`, `npm pack` and the test run's global setup; by hand: `npm run build`.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const agentDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const bundleFile = path.join(agentDir, 'dist', 'svc-agent.mjs');

/** @param {string} file @param {Uint8Array | string} contents */
function writeAtomically(file, contents) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, file);
}

/** Builds dist/svc-agent.mjs, written whole: an agent starting meanwhile never reads half a file. */
export async function buildAgentBundle() {
  const result = await build({
    entryPoints: [path.join(agentDir, 'src/cli/main.ts')],
    outfile: bundleFile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    // About 1 MB less resident (V8 keeps the source text); names stay, so stack traces still name functions.
    minifyWhitespace: true,
    minifySyntax: true,
    // ws's optional native helpers: it runs without them.
    external: ['bufferutil', 'utf-8-validate'],
    // CommonJS dependencies (commander, ws) require Node built-ins; an ES module has no `require` of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    logLevel: 'warning',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote no output');
  mkdirSync(path.dirname(bundleFile), { recursive: true });
  writeAtomically(bundleFile, output.contents);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  await buildAgentBundle();
  const ms = (performance.now() - started).toFixed(0);
  process.stdout.write(`svc-agent: built ${path.relative(process.cwd(), bundleFile)} (${ms} ms)\n`);
}
