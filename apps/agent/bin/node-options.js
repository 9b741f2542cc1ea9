// The V8 options the agent's daemon (`svc-agent run`) runs with, and whether the launcher has to start node
// again to apply them. Plain JavaScript, like node-version.js: the launcher runs it before the bundle. What each
// option saves and costs, measured: docs/decisions/0085-agent-footprint.md.

/**
 * Later tier-up, and no Maglev (V8's defaults: Maglev after 400 calls, TurboFan after 3,000).
 * - Start-up runs hundreds of functions just often enough to be optimized once and never again, which brings
 *   the optimizing compilers' code (megabytes of the node binary) and their work memory into the idle agent
 *   for good: with 100 times the counts, 3 MB less idle.
 * - The first frame of some size the agent sends (a file read, 90 KB) made Maglev compile the WebSocket
 *   masking loop on the spot: 8 MB more, kept. Without Maglev that loop runs in the baseline tiers until it is
 *   really hot, and then TurboFan takes it: masking 16 MB takes 76 ms (53–96 ms with the defaults; 600 ms with
 *   no optimizing compiler at all, --jitless or --lite-mode).
 * These are V8's own flags, not Node's: a V8 that does not know one makes node refuse to start, so they are
 * given only to the V8 versions that have them (11.3 in Node 20, 12.4 in Node 22, 13.6 in Node 24).
 */
export const tieringOptions = Object.freeze([
  '--invocation-count-for-maglev=40000',
  '--invocation-count-for-turbofan=300000',
  '--no-maglev',
]);

/** The V8 major versions `tieringOptions` are known to (11–13: Node 20 to 24). */
const knownV8 = { min: 11, max: 13 };

/** The environment variable that, set to `false` (`0`, `no`, `off`), runs the daemon with node's own defaults. */
export const tuneVariable = 'SVC_AGENT_TUNE_NODE';

/**
 * The options the daemon runs with on this V8 (`process.versions.v8`): none where they are not known to exist.
 * @param {string} v8Version
 * @returns {readonly string[]}
 */
export function daemonNodeOptions(v8Version) {
  const major = Number(v8Version.split('.')[0]);
  return major >= knownV8.min && major <= knownV8.max ? tieringOptions : [];
}

/**
 * An option's name without its value and without `no-` (`--maglev` and `--no-maglev` set the same thing).
 * @param {string} option
 */
function optionName(option) {
  return (option.split('=')[0] ?? option).replace(/^--no-/, '--').replaceAll('_', '-');
}

/**
 * The node options to start the daemon again with, or null when it is to run as it is: it is not the
 * daemon (`run`), the options are already in effect (node was started with them: the launcher's second start,
 * or an operator's), or `SVC_AGENT_TUNE_NODE=false`. An option the operator gave node with a value of their
 * own (`--invocation-count-for-maglev=500`, `--maglev`) is kept.
 * @param {{ argv: readonly string[], execArgv: readonly string[], env: Readonly<Record<string, string | undefined>>, v8Version: string }} process
 * @returns {string[] | null} node's options for the new start: the current ones, then the missing ones
 */
export function relaunchOptions({ argv, execArgv, env, v8Version }) {
  if (argv[0] !== 'run') return null;
  if (['false', '0', 'no', 'off'].includes((env[tuneVariable] ?? '').trim().toLowerCase())) return null;
  const given = new Set(execArgv.map(optionName));
  const missing = daemonNodeOptions(v8Version).filter((option) => !given.has(optionName(option)));
  return missing.length === 0 ? null : [...execArgv, ...missing];
}
