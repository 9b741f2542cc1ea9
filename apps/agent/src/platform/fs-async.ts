/**
 * The few file functions of the agent's idle path (settings, the OS release, the metrics collector, the
 * protected paths), as promises over node:fs's callbacks. node:fs/promises is not used there: loading it
 * brings readline's interface and the REPL history with it (0.8 MB in a plain node), which an idle agent never
 * uses (decision 0099). Areas loaded on first use keep node:fs/promises.
 */
// Not ES imports: the bundle's ES view of a CommonJS module reads every property descriptor of it, and reading
// node:util's loads parseArgs, util.diff and worker_threads on the spot.
const fs = process.getBuiltinModule('node:fs');
const { promisify } = process.getBuiltinModule('node:util');

export const access = promisify(fs.access);
export const lstat = promisify(fs.lstat);
export const mkdir = promisify(fs.mkdir);
export const readFile = promisify(fs.readFile);
export const readlink = promisify(fs.readlink);
export const realpath = promisify(fs.realpath);
export const rename = promisify(fs.rename);
export const statfs = promisify(fs.statfs);
export const unlink = promisify(fs.unlink);
