/**
 * The one esbuild set-up of the programs that ship as a single file run by plain node (the agent, the svc
 * CLI): an entry and everything it uses bundled into one ES module for Node 22+, whitespace and syntax
 * minified (names kept, so stack traces still name functions), written whole (a temporary file renamed over
 * it: a process starting meanwhile never reads half a file).
 *
 * And what keeps `npm start` quick: a build stamp per program (`buildStamp`), listing every file the last build
 * read, with its size and modification time, and the files it wrote. When none changed and all are there, the
 * build is skipped, as the console's is (apps/web/scripts/build.js).
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { builtinModules } from 'node:module';
import { build } from 'esbuild';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Outside every package's `files` and wiped with node_modules by `npm ci`, which then builds anew. */
const stampDir = path.join(repoRoot, 'node_modules', '.cache', 'svc-build');

/**
 * What every build reads besides its sources: the dependency versions, the shared set-up, compiler options and
 * each workspace's package.json (its `exports` and `sideEffects` shape what esbuild bundles).
 */
function commonInputs() {
  const workspaces = ['apps', 'packages'].flatMap((group) =>
    readdirSync(path.join(repoRoot, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${group}/${entry.name}/package.json`),
  );
  return ['package-lock.json', 'package.json', 'tsconfig.json', 'scripts/node-bundle.js', ...workspaces];
}

/** @param {string} file relative to the repository @returns {string} */
function signature(file) {
  try {
    const stat = statSync(path.join(repoRoot, file));
    return `${String(stat.size)}:${String(Math.floor(stat.mtimeMs))}`;
  } catch {
    return 'missing';
  }
}

/**
 * @typedef {{ inputs: Record<string, string>, outputs: string[] }} Stamp
 * @param {string} name one program's stamp (hub, agent, cli)
 */
export function buildStamp(name) {
  const file = path.join(stampDir, `${name}.json`);
  /** @returns {Stamp | null} */
  const read = () => {
    try {
      const value = /** @type {unknown} */ (JSON.parse(readFileSync(file, 'utf8')));
      if (typeof value !== 'object' || value === null || !('outputs' in value) || !('inputs' in value))
        return null;
      return /** @type {Stamp} */ (value);
    } catch {
      return null;
    }
  };
  return {
    /** The files the last build wrote (repository-relative), or none. @returns {string[]} */
    lastOutputs() {
      return read()?.outputs ?? [];
    },
    /** Whether the last build's outputs are all there and none of its inputs changed since. */
    isCurrent() {
      const stamp = read();
      if (!stamp || !Array.isArray(stamp.outputs) || typeof stamp.inputs !== 'object') return false;
      if (!stamp.outputs.every((out) => existsSync(path.join(repoRoot, out)))) return false;
      return Object.entries(stamp.inputs).every(([input, sig]) => signature(input) === sig);
    },
    /**
     * Records a build that started at `startedMs` (performance.timeOrigin-based wall clock, ms) and read
     * `inputs` (esbuild's metafile inputs, relative to the working directory) besides the common ones and
     * `scripts`. A file changed while it built leaves no stamp, so the next run builds again.
     * @param {{ startedMs: number, inputs: string[], scripts: string[], outputs: string[] }} what
     */
    write({ startedMs, inputs, scripts, outputs }) {
      const relative = (/** @type {string} */ f) => path.relative(repoRoot, path.resolve(f));
      /** @type {Record<string, string>} */
      const signatures = {};
      for (const input of [...commonInputs(), ...scripts.map(relative), ...inputs.map(relative)]) {
        const sig = signature(input);
        const mtime = Number(sig.split(':')[1]);
        if (Number.isFinite(mtime) && mtime >= startedMs) return;
        signatures[input] = sig;
      }
      mkdirSync(stampDir, { recursive: true });
      const temp = `${file}.${String(process.pid)}.tmp`;
      writeFileSync(temp, `${JSON.stringify({ inputs: signatures, outputs: outputs.map(relative) })}\n`);
      renameSync(temp, file);
    },
  };
}

const builtins = new Set(builtinModules);

/**
 * Node's built-in modules, imported as CommonJS (`require`, from the banner) rather than through the ES module
 * loader. An ES `import` of a built-in makes Node build that module's ES facade, which reads every export, and
 * some exports are getters that load more: `import http from 'node:http'` alone loads undici (for
 * http.WebSocket), http2, worker_threads and assert, and `node:fs/promises` loads readline: 12 MB of resident
 * memory for an agent that uses none of them (docs/decisions/0085-agent-footprint.md). `require` returns the
 * same module object without reading its getters.
 * @type {import('esbuild').Plugin}
 */
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^[a-z_/0-9:]+$/ }, (args) => {
      if (args.kind !== 'import-statement' && args.kind !== 'dynamic-import') return undefined;
      const bare = args.path.replace(/^node:/, '');
      if (!builtins.has(bare) && !builtins.has(args.path)) return undefined;
      return { path: args.path, namespace: 'builtin-by-require' };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'builtin-by-require' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Built-ins that dependencies `require` at their top but use only on some path: each resolves to a stand-in
 * that requires the real module on its first property read. ws requires node:zlib for permessage-deflate,
 * which the agent turns off: the idle agent then never loads zlib (decision 0099).
 * @param {readonly string[]} names
 * @returns {import('esbuild').Plugin}
 */
function builtinsOnFirstUse(names) {
  const lazy = new Set(names);
  return {
    name: 'builtins-on-first-use',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^[a-z_/0-9:]+$/ }, (args) => {
        if (args.kind !== 'require-call' || args.namespace === 'builtin-on-first-use') return undefined;
        if (!lazy.has(args.path.replace(/^node:/, ''))) return undefined;
        return { path: args.path, namespace: 'builtin-on-first-use' };
      });
      pluginBuild.onLoad({ filter: /.*/, namespace: 'builtin-on-first-use' }, (args) => ({
        contents: `let loaded; module.exports = new Proxy({}, { get: (_, key) => (loaded ??= require(${JSON.stringify(args.path)}))[key] });`,
        loader: 'js',
      }));
    },
  };
}

/**
 * Bundles `entry` into `outfile`, unless the stamp `name` says the last build is current (or `force`).
 * With `chunks` (a directory name next to `outfile`), what the entry only reaches through a dynamic `import()`
 * is split into chunk files there (esbuild code splitting), loaded when first imported; chunk names carry a
 * content hash, and chunks of earlier builds are removed. Chunks are written before the entry, so a process
 * starting meanwhile never finds an entry whose chunks are missing.
 * `onFirstUse` names built-ins that dependencies require but that are to load on their first use
 * (`builtinsOnFirstUse`).
 * @param {{ name: string; script: string; entry: string; outfile: string; chunks?: string; force?: boolean; onFirstUse?: readonly string[] }} target
 * @returns {Promise<{ built: boolean }>}
 */
export async function bundleForNode({
  name,
  script,
  entry,
  outfile,
  chunks,
  force = false,
  onFirstUse = [],
}) {
  const stamp = buildStamp(name);
  if (!force && stamp.isCurrent()) return { built: false };
  const startedMs = Date.now();
  const outdir = path.dirname(outfile);
  const result = await build({
    entryPoints: [entry],
    ...(chunks
      ? {
          outdir,
          splitting: true,
          entryNames: path.basename(outfile, '.mjs'),
          chunkNames: `${chunks}/[name]-[hash]`,
          outExtension: { '.js': '.mjs' },
        }
      : { outfile }),
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
    plugins: [builtinsByRequire, builtinsOnFirstUse(onFirstUse)],
    logLevel: 'warning',
    metafile: true,
  });
  const entryOutput = result.outputFiles.find((file) => path.resolve(file.path) === path.resolve(outfile));
  if (!entryOutput) throw new Error('esbuild wrote no output');
  const written = [...result.outputFiles.filter((file) => file !== entryOutput), entryOutput];
  for (const file of written) {
    mkdirSync(path.dirname(file.path), { recursive: true });
    const temp = `${file.path}.${String(process.pid)}.tmp`;
    writeFileSync(temp, file.contents);
    renameSync(temp, file.path);
  }
  if (chunks) {
    const chunkDir = path.join(outdir, chunks);
    mkdirSync(chunkDir, { recursive: true });
    const current = new Set(written.map((file) => path.resolve(file.path)));
    for (const old of readdirSync(chunkDir)) {
      if (!current.has(path.resolve(chunkDir, old))) rmSync(path.join(chunkDir, old), { force: true });
    }
  }
  stamp.write({
    startedMs,
    inputs: Object.keys(result.metafile.inputs),
    scripts: [script],
    outputs: written.map((file) => file.path),
  });
  return { built: true };
}

/**
 * Runs `buildIt` when the calling script is the one node was started with (`node scripts/build.js`), and says
 * what it built and how long it took.
 * `--force` builds even when nothing changed.
 * @param {string} scriptUrl the caller's `import.meta.url`
 * @param {string} name @param {string} outfile
 * @param {(options: { force: boolean }) => Promise<{ built: boolean }>} buildIt
 */
export async function buildWhenRun(scriptUrl, name, outfile, buildIt) {
  if (!process.argv[1] || scriptUrl !== pathToFileURL(path.resolve(process.argv[1])).href) return;
  const started = performance.now();
  const { built } = await buildIt({ force: process.argv.includes('--force') });
  const ms = (performance.now() - started).toFixed(0);
  process.stdout.write(
    `${name}: ${built ? 'built' : 'up to date:'} ${path.relative(process.cwd(), outfile)} (${ms} ms)\n`,
  );
}
