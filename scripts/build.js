/**
 * Builds what runs: the hub (apps/hub/dist/main.js and its chunks), the agent bundle (apps/agent/dist/svc-agent.mjs)
 * and the CLI bundle (packages/cli/dist/svc.mjs), by esbuild, and the web console (apps/web/dist, by Vite; it
 * fails when the console's initial JavaScript is over its budget). Each is skipped when nothing it read changed
 * since its last build (scripts/node-bundle.js, apps/web/scripts/build.js); `--force` builds them all. `npm install` runs it (postinstall), `npm start` runs it first
 * (prestart), and so does the test run (vitest global setup), so none of them runs code older than the
 * sources. docs/decisions/0006-node-and-build.md says why esbuild and not `tsc -b`.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { nodeVersionProblem } from '../apps/agent/bin/node-version.js';

// First, before any build: on an older Node (the machine's own Node 20), `npm start` used to build for a
// minute and then refuse without naming this checkout's remedy. (`npm ci` refuses at once: devEngines.)
const oldNode = nodeVersionProblem('svc hub', process.versions.node);
if (oldNode !== null) {
  process.stderr.write(
    `${oldNode.replace(/ Install a current Node\.js.*$/, '')}\n` +
      'In this checkout: `source scripts/use-node24.sh` (Node 24 into .node/, first on PATH), then `npm ci` and ' +
      '`npm start` again.\n',
  );
  process.exit(1);
}

/** @param {{ force?: boolean }} [options] */
export async function buildAll(options = {}) {
  // Loaded here, not imported at the top: they import esbuild, which an install without devDependencies lacks.
  const [{ buildAgentBundle }, { buildHub }, { buildConsole }, { buildCli }] = await Promise.all([
    import('../apps/agent/scripts/build.js'),
    import('../apps/hub/scripts/build.js'),
    import('../apps/web/scripts/build.js'),
    import('../packages/cli/scripts/build.js'),
  ]);
  const [hub, agent, web, cli] = await Promise.all([
    buildHub(options),
    buildAgentBundle(options),
    buildConsole(options),
    buildCli(options),
  ]);
  return { hub, agent, web, cli };
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
  let built;
  try {
    built = await buildAll({ force: process.argv.includes('--force') });
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
  const { hub, agent, web, cli } = built;
  const state = (/** @type {{ built: boolean }} */ b) => (b.built ? 'built' : 'up to date');
  process.stdout.write(
    `apps/hub/dist ${state(hub)}, apps/agent/dist/svc-agent.mjs ${state(agent)}, packages/cli/dist/svc.mjs ` +
      `${state(cli)}, apps/web/dist ${state(web)} (initial JS ${(web.initialJsGzipBytes / 1024).toFixed(1)} ` +
      `KiB gzipped) (${ms} ms)\n`,
  );
}
