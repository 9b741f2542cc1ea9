/**
 * Compiles the hub for `node`: src/main.ts and this repository's own code it uses (the workspace packages,
 * which export their TypeScript sources) bundled by esbuild into dist/main.js, with a source map. Packages
 * from npm stay outside the bundle and load from node_modules as they are: native addons (better-sqlite3,
 * bcrypt), pino's worker transports and anything else that finds files next to itself keep working.
 *
 * Plain JavaScript so that it runs without a TypeScript loader: `npm install` runs it (the root `postinstall`,
 * through `npm run build`), so do `npm start` and the test run's global setup.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const hubDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const mainFile = path.join(hubDir, 'dist', 'main.js');

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

/** Builds dist/main.js and its map, each written whole. */
export async function buildHub() {
  const result = await build({
    entryPoints: [path.join(hubDir, 'src/main.ts')],
    outfile: mainFile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    sourcemap: 'linked',
    plugins: [npmPackagesStayExternal],
    logLevel: 'warning',
  });
  mkdirSync(path.dirname(mainFile), { recursive: true });
  // The map first: a hub starting meanwhile finds the map of the code it runs, or an older one.
  const outputs = [...result.outputFiles].sort(
    (a, b) => Number(b.path.endsWith('.map')) - Number(a.path.endsWith('.map')),
  );
  for (const output of outputs) writeAtomically(output.path, output.contents);
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  await buildHub();
  const ms = (performance.now() - started).toFixed(0);
  process.stdout.write(`svc hub: built ${path.relative(process.cwd(), mainFile)} (${ms} ms)\n`);
}
