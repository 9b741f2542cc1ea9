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

it('the built hub imports only JavaScript: npm packages and Node built-ins, no .ts file', () => {
  const built = fs.readFileSync(path.join(repoRoot, 'apps/hub/dist/main.js'), 'utf8');
  const specifiers = [...built.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?["']([^"']+)["']/gm)].map(
    (m) => m[1] ?? '',
  );
  expect(specifiers.length).toBeGreaterThan(10);
  expect(
    specifiers.filter(
      (s) =>
        s.startsWith('.') || s.startsWith('/') || s.endsWith('.ts') || s.startsWith('@svc/') || s === 'tsx',
    ),
  ).toEqual([]);
  expect(built).not.toMatch(/["']tsx(\/[^"']*)?["']/);
});
