/**
 * Builds the CLI that ships: src/main.ts and everything it uses (commander, ws, @svc/sdk, @svc/protocol)
 * bundled by esbuild into one file, dist/svc.mjs, which bin/svc.js runs with plain node: the CLI starts
 * without a TypeScript loader and installs without this repository's node_modules.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const cliDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const cliBundle = path.join(cliDir, 'dist', 'svc.mjs');

/** Builds dist/svc.mjs, written whole (a temporary file renamed over it). */
export async function buildCli() {
  const result = await build({
    entryPoints: [path.join(cliDir, 'src/main.ts')],
    write: false,
    outfile: cliBundle,
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
  mkdirSync(path.dirname(cliBundle), { recursive: true });
  const temp = `${cliBundle}.${String(process.pid)}.tmp`;
  writeFileSync(temp, output.contents);
  renameSync(temp, cliBundle);
}
