/**
 * Compiles the hub for `node`: src/main.ts and this repository's own code it uses (the workspace packages,
 * which export their TypeScript sources) bundled by esbuild into dist/main.js and the chunks it imports when a
 * command needs them (dist/serve-….js runs the hub; `svc-hub --version`, `backup` or `migrate` never load it),
 * each with a source map. Packages from npm stay outside the bundle and load from node_modules as they are:
 * native addons (better-sqlite3, bcrypt), pino's worker transports and anything else that finds files next to
 * itself keep working. The chunks sit beside main.js, so `import.meta.url`-relative paths stay as they were.
 *
 * Skipped when nothing the last build read changed (scripts/node-bundle.js, `buildStamp`); `--force` builds.
 *
 * Plain JavaScript so that it runs without a TypeScript loader: `npm install` runs it (the root `postinstall`,
 * through `npm run build`), so do `npm start` and the test run's global setup.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { buildStamp } from '../../../scripts/node-bundle.js';

const hubDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const distDir = path.join(hubDir, 'dist');
const mainFile = path.join(distDir, 'main.js');

/** @type {import('esbuild').Plugin} */
const npmPackagesStayExternal = {
  name: 'npm-packages-stay-external',
  setup(builder) {
    // A bare specifier is a package; ours (@svc/…) are bundled, the rest load from node_modules at run time.
    builder.onResolve({ filter: /^[^./]/ }, (args) =>
      args.path.startsWith('@svc/') ? undefined : { path: args.path, external: true },
    );
  },
};

/** @param {string} file @param {Uint8Array | string} contents */
function writeAtomically(file, contents) {
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, contents);
  renameSync(temp, file);
}

/**
 * Builds dist/main.js, its chunks and their maps, each written whole, unless the last build is current.
 * @param {{ force?: boolean }} [options]
 * @returns {Promise<{ built: boolean }>}
 */
export async function buildHub(options = {}) {
  const stamp = buildStamp('hub');
  if (!options.force && stamp.isCurrent()) return { built: false };
  const startedMs = Date.now();
  const result = await build({
    entryPoints: [path.join(hubDir, 'src/main.ts')],
    outdir: distDir,
    entryNames: '[name]',
    chunkNames: '[name]-[hash]',
    splitting: true,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: 'linked',
    metafile: true,
    plugins: [npmPackagesStayExternal],
    logLevel: 'warning',
  });
  mkdirSync(distDir, { recursive: true });
  // Chunks and maps first, main.js last: a hub starting meanwhile runs the old main.js with its old chunks
  // (kept below), or the new one with all of its own.
  const rank = (/** @type {string} */ file) => (file === mainFile ? 2 : file.endsWith('.map') ? 0 : 1);
  const outputs = [...result.outputFiles].sort((a, b) => rank(a.path) - rank(b.path));
  for (const output of outputs) writeAtomically(output.path, output.contents);
  // Chunks of neither this build nor the one before go: a hub still running the one before may yet import its.
  const keep = new Set([
    ...outputs.map((o) => path.basename(o.path)),
    ...stamp.lastOutputs().map((o) => path.basename(o)),
  ]);
  for (const name of readdirSync(distDir)) {
    if (/\.js(\.map)?$/.test(name) && !keep.has(name)) rmSync(path.join(distDir, name), { force: true });
  }
  stamp.write({
    startedMs,
    inputs: Object.keys(result.metafile.inputs),
    scripts: [fileURLToPath(import.meta.url)],
    outputs: outputs.map((o) => o.path),
  });
  return { built: true };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  const { built } = await buildHub({ force: process.argv.includes('--force') });
  const ms = (performance.now() - started).toFixed(0);
  process.stdout.write(
    `svc hub: ${built ? 'built' : 'up to date:'} ${path.relative(process.cwd(), mainFile)} (${ms} ms)\n`,
  );
}
