#!/usr/bin/env node
// The svc-agent executable: refuses a Node.js older than it needs, then runs the agent bundle that the build
// (scripts/build.js: `npm install`, `npm run build`, `npm pack`) wrote to dist/svc-agent.mjs (and dist/chunks,
// which it imports on first use).
// The bundle is imported only after the check, so an old Node says why instead of failing inside it.
// The daemon (`svc-agent run`) runs with the V8 options of node-options.js (a smaller idle agent): when node
// was not started with them, the launcher starts node again in the same process with them added
// (process.execve: the same pid, so systemd and the agent's own protected-process check see no change); where
// execve is missing (Node before 22.15, Windows) it runs with node's defaults.
// No ES import of node:fs or node:process here: their ES facades read every export, and fs.promises and
// process.report are getters that load node:fs/promises (with readline and the REPL history) and the
// diagnostic report for good, about 1 MB of the idle daemon (decision 0099). `process` is node's global.
/* global process, URL */
import { fileURLToPath } from 'node:url';
import { relaunchOptions } from './node-options.js';
import { refuseOldNode } from './node-version.js';

refuseOldNode('svc-agent');
const bundle = new URL('../dist/svc-agent.mjs', import.meta.url);
if (!process.getBuiltinModule('node:fs').existsSync(bundle)) {
  process.stderr.write(
    'svc-agent: the agent is not built (dist/svc-agent.mjs is missing); run `npm run build`\n',
  );
  process.exit(1);
}
const relaunch = relaunchOptions({
  argv: process.argv.slice(2),
  execArgv: process.execArgv,
  env: process.env,
  v8Version: process.versions.v8,
});
if (relaunch && typeof process.execve === 'function') {
  // Does not return: node starts again in this process (a failed execve aborts, as node documents; it runs
  // the node binary that is running now).
  process.execve(
    process.execPath,
    [process.execPath, ...relaunch, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    process.env,
  );
}
await import(bundle.href);
