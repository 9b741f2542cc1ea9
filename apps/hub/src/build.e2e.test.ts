/**
 * The hub runs as compiled JavaScript (docs/decisions/0006-node-and-build.md): `npm start` is plain node on
 * the launcher, no package a user installs brings a TypeScript loader or a bundler along, and the built
 * hub (apps/hub/dist/main.js, built by the test run's global setup) imports no TypeScript.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

interface Manifest {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
}

function manifest(dir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(repoRoot, dir, 'package.json'), 'utf8')) as Manifest;
}

const loaders = /\btsx\b|ts-node|--import|--loader|--experimental-strip-types|--experimental-transform-types/;

it('npm start runs the compiled hub with plain node', () => {
  const { scripts = {} } = manifest('.');
  expect(scripts.start).toMatch(/ node apps\/hub\/bin\/svc-hub\.js$/);
  expect(scripts.start).not.toMatch(loaders);
  expect(scripts.prestart).toBe('node scripts/build.js');
});

it.each(['.', 'apps/hub', 'apps/agent', 'packages/protocol', 'packages/sdk', 'packages/testkit'])(
  '%s has no TypeScript loader, compiler or bundler among its runtime dependencies',
  (dir) => {
    const runtime = Object.keys(manifest(dir).dependencies ?? {});
    expect(runtime.filter((name) => ['tsx', 'esbuild', 'ts-node', 'typescript'].includes(name))).toEqual([]);
  },
);

it('the built hub imports only JavaScript: npm packages, Node built-ins and its own chunks, no .ts file', () => {
  const dist = path.join(repoRoot, 'apps/hub/dist');
  const built = fs
    .readdirSync(dist)
    .filter((name) => name.endsWith('.js'))
    .map((name) => fs.readFileSync(path.join(dist, name), 'utf8'))
    .join('\n');
  const specifiers = [
    ...built.matchAll(/^(?:import|export)\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["']/gm),
    ...built.matchAll(/\bimport\(["']([^"']+)["']\)/g),
  ].map((m) => m[1] ?? '');
  expect(specifiers.length).toBeGreaterThan(10);
  expect(
    specifiers.filter(
      (s) =>
        (s.startsWith('.') && !/^\.\/[\w-]+\.js$/.test(s)) ||
        s.startsWith('/') ||
        s.endsWith('.ts') ||
        s.startsWith('@svc/') ||
        s === 'tsx',
    ),
  ).toEqual([]);
  // The chunks it imports sit beside it (paths relative to import.meta.url stay those of dist/main.js).
  for (const s of specifiers.filter((x) => x.startsWith('./')))
    expect(fs.existsSync(path.join(dist, s)), s).toBe(true);
  expect(built).not.toMatch(/["']tsx(\/[^"']*)?["']/);
});

it('package.json approves the install scripts the install runs (npm 11 allowScripts), and only those', () => {
  const root = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    allowScripts?: Record<string, boolean>;
  };
  const lock = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { hasInstallScript?: boolean }>;
  };
  // A declared install script (the lock says so), or node-gyp's implicit one for a package with binding.gyp.
  const withScripts = Object.entries(lock.packages)
    .filter(([where]) => where.startsWith('node_modules/'))
    .filter(
      ([where, entry]) =>
        entry.hasInstallScript === true || fs.existsSync(path.join(repoRoot, where, 'binding.gyp')),
    )
    .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
  expect(Object.keys(root.allowScripts ?? {}).sort()).toEqual([...new Set(withScripts)].sort());
});
