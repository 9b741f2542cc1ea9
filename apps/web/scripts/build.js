/**
 * Builds the web console into apps/web/dist with Vite: hashed files under dist/assets/, index.html, and a
 * gzip and a brotli twin of each text file (the hub sends them to browsers that take them). Then checks the
 * initial JavaScript budget: what a browser must load before the sign-in page shows (the entry and the
 * chunks index.html preloads), gzipped, at most `initialJsBudgetBytes`; over it, the build fails.
 *
 * `npm install`, `npm start` and the e2e test run call it through the root scripts/build.js. When no input
 * changed since the last build (sources of the console, the SDK and the protocol), it does nothing, so
 * `npm start` stays quick.
 *
 * Plain JavaScript so that it runs without a TypeScript loader.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const webDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(webDir, '..', '..');
const distDir = path.join(webDir, 'dist');
const stampFile = path.join(distDir, '.build-stamp');

/** The initial JavaScript of the sign-in page, gzipped (docs/BENCHMARKS.md, "console"). */
const initialJsBudgetBytes = 120 * 1024;

/** What the build reads: when none of it changed, the last build stands. */
const inputs = [
  path.join(webDir, 'src'),
  path.join(webDir, 'public'),
  path.join(webDir, 'index.html'),
  path.join(webDir, 'package.json'),
  path.join(webDir, 'scripts', 'build.js'),
  path.join(repoRoot, 'packages', 'sdk', 'src'),
  path.join(repoRoot, 'packages', 'protocol', 'src'),
  path.join(repoRoot, 'package-lock.json'),
];

/** @param {string} entry @param {string[]} out */
function listFiles(entry, out) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return out;
  }
  if (stat.isDirectory()) {
    for (const name of fs.readdirSync(entry).sort()) listFiles(path.join(entry, name), out);
  } else if (!entry.endsWith('.test.ts')) {
    out.push(`${path.relative(repoRoot, entry)}:${stat.size}:${Math.floor(stat.mtimeMs)}`);
  }
  return out;
}

function inputStamp() {
  const lines = inputs.flatMap((entry) => listFiles(entry, []));
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** @param {string} dir @returns {string[]} */
function filesUnder(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

const compressible = new Set(['.js', '.css', '.svg', '.json', '.webmanifest', '.txt']);

/** Writes `<file>.gz` and `<file>.br` beside each text file, when smaller. */
function precompress() {
  for (const file of filesUnder(distDir)) {
    if (!compressible.has(path.extname(file))) continue;
    const raw = fs.readFileSync(file);
    const gz = gzipSync(raw, { level: 9 });
    const br = brotliCompressSync(raw, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 10, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length },
    });
    if (gz.length < raw.length) fs.writeFileSync(`${file}.gz`, gz);
    if (br.length < raw.length) fs.writeFileSync(`${file}.br`, br);
  }
}

/**
 * The scripts a browser loads before the sign-in page shows: index.html's module entry and the chunks it
 * preloads (the pages behind lazy routes are not among them).
 * @returns {{ files: { file: string, gzipBytes: number }[], gzipBytes: number }}
 */
function initialJavaScript() {
  const html = fs.readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const sources = [
    ...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g),
  ].map((m) => m[1] ?? '');
  const files = [...new Set(sources)].map((source) => {
    const file = path.join(distDir, ...source.split('/').filter(Boolean));
    return {
      file: path.relative(webDir, file),
      gzipBytes: gzipSync(fs.readFileSync(file), { level: 9 }).length,
    };
  });
  return { files, gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
}

/**
 * Builds dist/ unless it is current. Returns what it did and the initial JavaScript's gzipped size.
 * @param {{ force?: boolean }} [options]
 */
export async function buildConsole(options = {}) {
  const stamp = inputStamp();
  const current =
    !options.force &&
    fs.existsSync(path.join(distDir, 'index.html')) &&
    fs.existsSync(stampFile) &&
    fs.readFileSync(stampFile, 'utf8') === stamp;
  if (!current) {
    // Loaded here: an install without devDependencies has no Vite (and keeps what was built before).
    const { build } = await import('vite');
    // Production React whoever calls (the test run sets NODE_ENV=test, which would pick development builds).
    const nodeEnv = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    await build({
      configFile: false,
      mode: 'production',
      root: webDir,
      logLevel: 'warn',
      build: {
        outDir: distDir,
        emptyOutDir: true,
        target: 'es2022',
        // Every script is a file of this origin (the CSP has no inline script); module preload is native.
        modulePreload: { polyfill: false },
        assetsInlineLimit: 0,
        reportCompressedSize: false,
        rolldownOptions: {
          // React Query and React Router mark modules "use client" for server components; meaningless here.
          onLog(level, log, handler) {
            if (log.code !== 'MODULE_LEVEL_DIRECTIVE') handler(level, log);
          },
        },
      },
    });
    // The mobile app's service worker: one classic script at the root (dist/sw.js, scope /m/), not hashed, so
    // its URL stays the same and the browser sees a new build at its next update check.
    await build({
      configFile: false,
      mode: 'production',
      root: webDir,
      logLevel: 'warn',
      publicDir: false,
      build: {
        outDir: distDir,
        emptyOutDir: false,
        target: 'es2022',
        copyPublicDir: false,
        reportCompressedSize: false,
        rolldownOptions: {
          input: path.join(webDir, 'src', 'sw', 'service-worker.ts'),
          output: { format: 'iife', entryFileNames: 'sw.js' },
        },
      },
    });
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
    precompress();
  }
  const initial = initialJavaScript();
  if (initial.gzipBytes > initialJsBudgetBytes) {
    fs.rmSync(stampFile, { force: true });
    const list = initial.files.map((f) => `${f.file} ${f.gzipBytes} B`).join(', ');
    throw new Error(
      `the console's initial JavaScript is ${initial.gzipBytes} bytes gzipped, over the budget of ${initialJsBudgetBytes} (${list})`,
    );
  }
  if (!current) fs.writeFileSync(stampFile, stamp);
  // For the console benchmark and anyone curious: what the budget check measured.
  fs.writeFileSync(
    path.join(distDir, '.initial-js.json'),
    `${JSON.stringify({ ...initial, budgetBytes: initialJsBudgetBytes }, null, 2)}\n`,
  );
  return { built: !current, initialJsGzipBytes: initial.gzipBytes };
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const started = performance.now();
  const result = await buildConsole({ force: process.argv.includes('--force') });
  const ms = (performance.now() - started).toFixed(0);
  const kb = (result.initialJsGzipBytes / 1024).toFixed(1);
  process.stdout.write(
    `svc web: ${result.built ? 'built' : 'up to date:'} ${path.relative(process.cwd(), distDir)} (${ms} ms; initial JS ${kb} KiB gzipped, budget ${initialJsBudgetBytes / 1024} KiB)\n`,
  );
}
