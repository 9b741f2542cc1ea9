/**
 * console benchmark baseline for the first load: a static page of the same bytes as the console's sign-in page.
 * It has the sign-in form in its HTML and, in its head, render-blocking scripts of the same sizes as the
 * scripts the console's index.html loads (each the console's file inside one comment: the same bytes and
 * the same compression, nothing to run) and the console's own stylesheets. So the form shows once the same
 * bytes are in, with none of the console's work (running React, asking the hub who is signed in, rendering).
 *
 * Written into the console's build (apps/web/dist/bench-static-twin/, with the brotli and gzip twins the build
 * writes beside its files), so the hub serves it as it serves the console: the same process, TLS, HTTP and
 * file handling. `remove()` deletes it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

export interface StaticTwin {
  /** The page's path on the hub. */
  path: string;
  /** What the page loads besides its HTML, uncompressed and brotli-compressed, in bytes. */
  rawBytes: number;
  brotliBytes: number;
  remove(): void;
}

const folder = 'bench-static-twin';

/** Writes `file` and its compressed twins as the console's build does; returns the brotli size. */
function writeWithTwins(file: string, raw: Buffer): number {
  const br = brotliCompressSync(raw, {
    params: { [zlib.BROTLI_PARAM_QUALITY]: 10, [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length },
  });
  fs.writeFileSync(file, raw);
  fs.writeFileSync(`${file}.br`, br);
  fs.writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }));
  return br.length;
}

/** The console's file as a script that does nothing: its text inside one comment. */
function inertScript(source: string): Buffer {
  return Buffer.from(`/*${source.replaceAll('*/', '* /')}*/`);
}

/** The scripts and stylesheets the console's index.html (in `distDir`) loads, by URL path. */
function loadedByIndex(distDir: string): { scripts: string[]; styles: string[] } {
  const html = fs.readFileSync(path.join(distDir, 'index.html'), 'utf8');
  const scripts = [
    ...html.matchAll(/<script[^>]+src="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+\.js)"/g),
  ].map((m) => m[1] ?? '');
  const styles = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+\.css)"/g)].map(
    (m) => m[1] ?? '',
  );
  return { scripts: [...new Set(scripts)], styles: [...new Set(styles)] };
}

function pageHtml(scripts: readonly string[], styles: readonly string[]): string {
  const local = (urlPath: string) => `/${folder}/${path.posix.basename(urlPath)}`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>svc hub</title>
${styles.map((s) => `    <link rel="stylesheet" href="${local(s)}" />`).join('\n')}
${scripts.map((s) => `    <script src="${local(s)}"></script>`).join('\n')}
  </head>
  <body>
    <main>
      <form>
        <h1>Sign in</h1>
        <label>Username <input name="username" autocomplete="username" /></label>
        <label>Password <input name="password" type="password" autocomplete="current-password" /></label>
        <button type="submit">Sign in</button>
      </form>
    </main>
  </body>
</html>
`;
}

export function writeStaticTwin(distDir: string): StaticTwin {
  const { scripts, styles } = loadedByIndex(distDir);
  const dir = path.join(distDir, folder);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir);
  const read = (urlPath: string) =>
    fs.readFileSync(path.join(distDir, ...urlPath.split('/').filter(Boolean)));
  const sizes = { raw: 0, brotli: 0 };
  const write = (urlPath: string, raw: Buffer) => {
    sizes.raw += raw.length;
    sizes.brotli += writeWithTwins(path.join(dir, path.posix.basename(urlPath)), raw);
  };
  for (const s of scripts) write(s, inertScript(read(s).toString('utf8')));
  for (const s of styles) write(s, read(s));
  writeWithTwins(path.join(dir, 'index.html'), Buffer.from(pageHtml(scripts, styles)));
  return {
    path: `/${folder}/index.html`,
    rawBytes: sizes.raw,
    brotliBytes: sizes.brotli,
    remove: () => {
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
