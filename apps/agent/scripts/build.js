/**
 * Precompiles the agent: bundles src/cli/main.ts and its dependencies (ws, commander, typebox, @svc/protocol)
 * into dist/svc-agent.mjs, run by bin/svc-agent.js with plain node. Under the tsx loader the same code holds
 * about 145 MB resident; bundled, about 56 MB (docs/BENCHMARKS.md, "agent").
 *
 * Plain JavaScript so that it runs without tsx: `npm install` runs it (the root `postinstall`), the test
 * run runs it when the sources changed (scripts/test-global-setup.js), and by hand:
 * `npm run build -w @svc/agent`.
 * `--if-stale` builds only when the bundle is missing or was built from other sources.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { agentDir, bundleFile, bundleStaleReason, digestOf, sourcesFile } from '../bin/bundle-state.js';

const loaders = /** @type {const} */ ({ '.ts': 'ts', '.js': 'js', '.mjs': 'js', '.json': 'json' });

/**
 * Loads this repository's own sources (not node_modules) itself, to record the digest of exactly what went
 * into the bundle.
 * @param {Record<string, string>} digests filled in: path relative to the agent folder → SHA-256
 * @returns {import('esbuild').Plugin}
 */
function recordSources(digests) {
  return {
    name: 'record-sources',
    setup(builder) {
      builder.onLoad({ filter: /\.(ts|js|mjs|json)$/ }, (args) => {
        if (args.path.split(path.sep).includes('node_modules')) return undefined;
        const loader = loaders[/** @type {keyof typeof loaders} */ (path.extname(args.path))];
        const contents = readFileSync(args.path);
        digests[path.relative(agentDir, args.path)] = digestOf(contents);
        return { contents, loader };
      });
    },
  };
}

/** @param {string} file @param {Uint8Array | string} contents */
function writeAtomically(file, contents) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, file);
}

/** Builds dist/svc-agent.mjs and its list of sources, each written whole: an agent never reads half. */
export async function buildAgentBundle() {
  /** @type {Record<string, string>} */
  const digests = {};
  const result = await build({
    entryPoints: [path.join(agentDir, 'src/cli/main.ts')],
    outfile: bundleFile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // About 1 MB less resident (V8 keeps the source text); names stay, so stack traces still name functions.
    minifyWhitespace: true,
    minifySyntax: true,
    // ws's optional native helpers: it runs without them.
    external: ['bufferutil', 'utf-8-validate'],
    // CommonJS dependencies (commander, ws) require Node built-ins; an ES module has no `require` of its own.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    plugins: [recordSources(digests)],
    logLevel: 'warning',
  });
  const [output] = result.outputFiles;
  if (!output) throw new Error('esbuild wrote no output');
  mkdirSync(path.dirname(bundleFile), { recursive: true });
  writeAtomically(bundleFile, output.contents);
  const sorted = Object.fromEntries(Object.entries(digests).sort(([a], [b]) => a.localeCompare(b)));
  writeAtomically(sourcesFile, `${JSON.stringify({ sources: sorted }, null, 2)}\n`);
}

/** Builds when the bundle is missing or out of date; says why on stderr. */
export async function buildAgentBundleIfStale() {
  const reason = bundleStaleReason();
  if (reason === null) return;
  process.stderr.write(`svc-agent: building ${path.relative(process.cwd(), bundleFile)} (${reason})\n`);
  await buildAgentBundle();
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  if (process.argv.includes('--if-stale')) await buildAgentBundleIfStale();
  else await buildAgentBundle();
  const ms = (performance.now() - started).toFixed(0);
  process.stdout.write(`svc-agent: ${path.relative(process.cwd(), bundleFile)} is current (${ms} ms)\n`);
}
