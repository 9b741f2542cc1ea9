/**
 * Builds what runs: the hub (apps/hub/dist/main.js), the agent bundle (apps/agent/dist/svc-agent.mjs) and the
 * CLI bundle (packages/cli/dist/svc.mjs), by esbuild, in about a second, and the web console (apps/web/dist, by Vite, skipped when its sources
 * did not change; it fails when the console's initial JavaScript is over its budget). `npm install` runs it (postinstall), `npm start` runs it first
 * (prestart), and so does the test run (vitest global setup), so none of them runs code older than the
 * sources. docs/decisions/0006-node-and-build.md says why esbuild and not `tsc -b`.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

export async function buildAll() {
  // Loaded here, not imported at the top: they import esbuild, which an install without devDependencies lacks.
  const [{ buildAgentBundle }, { buildHub }, { buildConsole }, { buildCli }] = await Promise.all([
    import('../apps/agent/scripts/build.js'),
    import('../apps/hub/scripts/build.js'),
    import('../apps/web/scripts/build.js'),
    import('../packages/cli/scripts/build.js'),
  ]);
  const [, , web] = await Promise.all([buildHub(), buildAgentBundle(), buildConsole(), buildCli()]);
  return web;
}

/** Vitest global setup: the end-to-end tests and the launcher tests run the built output, as shipped. */
export async function setup() {
  await buildAll();
}

/** @param {unknown} error */
function isEsbuildMissing(error) {
  return (
    error instanceof Error &&
    'code' in error &&
    error.code === 'ERR_MODULE_NOT_FOUND' &&
    (error.message.includes("'esbuild'") || error.message.includes("'vite'"))
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  let web;
  try {
    web = await buildAll();
  } catch (error) {
    // `npm ci --omit=dev` must not fail here: what was built before stays, and the launchers say when
    // there is nothing built.
    if (!isEsbuildMissing(error)) throw error;
    process.stderr.write(
      'build: esbuild or vite is not installed (installed without devDependencies?); nothing built\n',
    );
    process.exit(0);
  }
  const ms = (performance.now() - started).toFixed(0);
  const console = `apps/web/dist ${web.built ? 'built' : 'up to date'}, initial JS ${(web.initialJsGzipBytes / 1024).toFixed(1)} KiB gzipped`;
  process.stdout.write(
    `built apps/hub/dist/main.js, apps/agent/dist/svc-agent.mjs and packages/cli/dist/svc.mjs; ${console} (${ms} ms)\n`,
  );
}
