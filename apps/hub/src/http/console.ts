/**
 * The web console's files (apps/web/dist), served on the hub's own origin: a GET outside `/api` that no route
 * matches lands here (app.ts, from the not-found handler, so the route inventory stays the API's). A file of
 * the build is sent as it is; any other path gets index.html, where the console's router takes over.
 *
 * - hashed files under `/assets/` are cached for a year (their name changes with their content); index.html
 *   and the other files are revalidated every time (ETag), so a new build is seen at the next load;
 * - a strict Content-Security-Policy on every console answer: scripts, styles and connections from this
 *   origin only, no inline script, no framing (docs/decisions/0014-web-console.md);
 * - `..`, encoded or not, a backslash or a NUL in the path is refused before the file system is asked;
 * - without a build the hub still starts, and `/` says, with 503, how to build the console.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './envelope.js';
import { HubError } from '../platform/hub-error.js';

export const consoleContentSecurityPolicy = [
  "default-src 'self'",
  // WebAssembly compilation only (the recording player's terminal emulator, decision 0029); no JS eval.
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

export interface ConsoleOptions {
  /** The built console; a directory without index.html means "not built". */
  dir: string;
  /** What the sign-in page offers, written into index.html as a meta tag (no inline script under the CSP). */
  oidc: boolean;
}

export type ConsoleHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;

const immutable = 'public, max-age=31536000, immutable';

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** Precompressed twins the build writes beside each text file, best first. */
const encodings = [
  { name: 'br', suffix: '.br' },
  { name: 'gzip', suffix: '.gz' },
] as const;

/**
 * apps/web/dist beside the hub's package, wherever the hub runs from: its sources (tests) or its bundle
 * (apps/hub/dist/main.js).
 */
export function defaultConsoleDir(moduleUrl: string = import.meta.url): string {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  for (let i = 0; i < 6; i += 1) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      const name = (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown }).name;
      if (name === '@svc/hub') return path.resolve(dir, '..', 'web', 'dist');
    }
    dir = path.dirname(dir);
  }
  return path.resolve(process.cwd(), 'apps', 'web', 'dist');
}

/** Whether a request is the console's to answer: a GET or HEAD outside `/api`. */
export function isConsoleRequest(method: string, url: string): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  const pathname = url.split('?')[0] ?? '';
  return pathname !== '/api' && !pathname.startsWith('/api/');
}

type PathCheck = { ok: true; segments: string[] } | { ok: false; problem: string };

/** The path's segments, decoded, or why the path is refused before any file is looked at. */
function consolePathSegments(url: string): PathCheck {
  const raw = url.split('?')[0] ?? '';
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return { ok: false, problem: 'the path is not valid percent-encoding' };
  }
  if (decoded.includes('\0') || decoded.includes('\\')) {
    return { ok: false, problem: 'the path holds a NUL or a backslash' };
  }
  const segments = decoded.split('/').filter((s) => s !== '');
  if (segments.some((s) => s === '..' || s === '.')) {
    return { ok: false, problem: "the path holds a '.' or '..' segment" };
  }
  return { ok: true, segments };
}

interface FileFound {
  file: string;
  size: number;
  etag: string;
}

function statFile(file: string): FileFound | null {
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) return null;
    return {
      file,
      size: stat.size,
      etag: `"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`,
    };
  } catch {
    return null;
  }
}

/** The build's file for these segments, never outside the build or in a dot-folder; null when none. */
function findFile(dir: string, segments: readonly string[]): FileFound | null {
  if (segments.length === 0 || segments.some((s) => s.startsWith('.'))) return null;
  const file = path.resolve(dir, ...segments);
  if (!file.startsWith(dir + path.sep)) return null;
  return statFile(file);
}

function acceptedEncoding(
  request: FastifyRequest,
  found: FileFound,
): { name: string; file: FileFound } | null {
  const header = request.headers['accept-encoding'];
  const accepted = typeof header === 'string' ? header : '';
  for (const encoding of encodings) {
    if (!accepted.includes(encoding.name)) continue;
    const twin = statFile(found.file + encoding.suffix);
    if (twin) return { name: encoding.name, file: twin };
  }
  return null;
}

function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html');
}

const notBuiltMessage =
  'The web console is not built: run `npm run build` (or `npm start`, which builds first) in the checkout, then reload.';

function notBuiltPage(): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8"><title>svc hub: console not built</title></head>',
    '<body><h1>The web console is not built</h1>',
    '<p>Run <code>npm run build</code> (or <code>npm start</code>, which builds first) in the checkout, then reload.</p>',
    '<p>The API answers meanwhile: <a href="/api/v2/openapi.json">/api/v2/openapi.json</a>.</p>',
    '</body></html>',
  ].join('\n');
}

/** index.html with what the sign-in page needs to know, as a meta tag the console reads. */
function withSignInOptions(html: string, oidc: boolean): string {
  const meta = `<meta name="svc-oidc" content="${oidc ? 'enabled' : 'disabled'}">`;
  return html.includes('</head>') ? html.replace('</head>', `${meta}</head>`) : meta + html;
}

export function createConsoleHandler(options: ConsoleOptions): ConsoleHandler {
  const dir = path.resolve(options.dir);

  async function sendIndex(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    let html: string;
    try {
      html = await fs.promises.readFile(path.join(dir, 'index.html'), 'utf8');
    } catch {
      void reply.header('Retry-After', '30');
      if (wantsHtml(request)) {
        return reply.code(503).type('text/html; charset=utf-8').send(notBuiltPage());
      }
      return sendError(request, reply, new HubError('unavailable', notBuiltMessage));
    }
    return reply
      .code(200)
      .header('Cache-Control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(withSignInOptions(html, options.oidc));
  }

  return async (request, reply) => {
    void reply.header('Content-Security-Policy', consoleContentSecurityPolicy);
    void reply.header('Referrer-Policy', 'same-origin');
    void reply.header('Cross-Origin-Opener-Policy', 'same-origin');
    const checked = consolePathSegments(request.url);
    if (!checked.ok) {
      return sendError(
        request,
        reply,
        new HubError('validation', `The request path is refused: ${checked.problem}.`),
      );
    }
    const { segments } = checked;
    if (segments.length === 1 && segments[0] === 'index.html') return sendIndex(request, reply);
    const found = findFile(dir, segments);
    const isHashedAsset = segments[0] === 'assets';
    if (!found) {
      // A missing file is a 404, not the page: a browser loading an old chunk must see it failed. Console
      // paths have no extension (`/assets/ast_…` is an asset's page, not a file of the build).
      if (path.extname(segments.at(-1) ?? '') !== '') {
        return sendError(
          request,
          reply,
          new HubError('not_found', `No file ${request.url.split('?')[0] ?? ''}.`),
        );
      }
      return sendIndex(request, reply);
    }
    const encoded = acceptedEncoding(request, found);
    const sent = encoded?.file ?? found;
    void reply.header('Cache-Control', isHashedAsset ? immutable : 'no-cache');
    void reply.header('ETag', sent.etag);
    void reply.header('Vary', 'Accept-Encoding');
    if (request.headers['if-none-match'] === sent.etag) return reply.code(304).send();
    const type = contentTypes[path.extname(found.file)] ?? 'application/octet-stream';
    if (encoded) void reply.header('Content-Encoding', encoded.name);
    return reply
      .code(200)
      .type(type)
      .header('Content-Length', String(sent.size))
      .send(fs.createReadStream(sent.file));
  };
}
