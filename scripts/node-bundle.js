/**
 * The one esbuild set-up of the programs that ship as a single file run by plain node (the agent, the svc
 * CLI): an entry and everything it uses bundled into one ES module for Node 22+, whitespace and syntax
 * minified (names kept, so stack traces still name functions), written whole (a temporary file renamed over
 * it: a process starting meanwhile never reads half a file).
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/** @param {{ entry: string; outfile: string }} target */
export async function bundleForNode({ entry, outfile }) {
  const result = await build({
    entryPoints: [entry],
    outfile,
    write: false,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
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
  mkdirSync(path.dirname(outfile), { recursive: true });
  const temp = `${outfile}.${String(process.pid)}.tmp`;
  writeFileSync(temp, output.contents);
  renameSync(temp, outfile);
}

/**
 * Runs `buildIt` when the calling script is the one node was started with (`node scripts/build.js`), and says
 * what it built and how long it took.
 * @param {string} scriptUrl the caller's `import.meta.url`
 * @param {string} name @param {string} outfile @param {() => Promise<void>} buildIt
 */
export async function buildWhenRun(scriptUrl, name, outfile, buildIt) {
  if (!process.argv[1] || scriptUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return;
  const started = performance.now();
  await buildIt();
  const ms = (performance.now() - started).toFixed(0);
  process.stdout.write(`${name}: built ${path.relative(process.cwd(), outfile)} (${ms} ms)\n`);
}
