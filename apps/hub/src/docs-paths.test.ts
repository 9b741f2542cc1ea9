/**
 * The docs name files of this repository (`deploy/haproxy/haproxy.cfg`, `apps/hub/src/e2e/haproxy.test.ts`…);
 * a reader who opens one must find it. Every path a doc names from the repository's root exists. Decisions are
 * left out: they record what was true when they were taken. Built output (`dist/`) is left out too.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The docs a reader follows: the READMEs, docs/*.md and the deployment files with their comments. */
function docs(): string[] {
  const found = ['README.md', 'bench/README.md'];
  for (const dir of ['docs', 'deploy/container', 'deploy/haproxy'])
    for (const name of fs.readdirSync(path.join(repoRoot, dir)))
      if (/\.(md|cfg|yaml|sh)$|^Containerfile$/.test(name)) found.push(`${dir}/${name}`);
  for (const app of fs.readdirSync(path.join(repoRoot, 'apps')))
    if (fs.existsSync(path.join(repoRoot, 'apps', app, 'README.md'))) found.push(`apps/${app}/README.md`);
  return found;
}

/** Paths from the root a text names: `apps/…`, `packages/…`, `deploy/…`, `docs/…`, `scripts/…`, `bench/…`. */
function namedPaths(text: string): string[] {
  const paths = new Set<string>();
  for (const match of text.matchAll(/(?<![\w./-])(?:apps|packages|deploy|docs|scripts|bench)\/[\w./-]+/g)) {
    const named = match[0].replace(/[.,:)]+$/, '');
    // Patterns and placeholders (`apps/*/src`, `<area>`), and what the build writes.
    if (/[<*{…]/.test(text.slice(match.index, match.index + match[0].length + 1))) continue;
    if (named.split('/').includes('dist')) continue;
    paths.add(named);
  }
  return [...paths];
}

describe('paths the docs name', () => {
  it('exist', () => {
    const missing: string[] = [];
    for (const doc of docs()) {
      const text = fs.readFileSync(path.join(repoRoot, doc), 'utf8');
      for (const named of namedPaths(text))
        if (!fs.existsSync(path.join(repoRoot, named))) missing.push(`${doc}: ${named}`);
    }
    expect(missing).toEqual([]);
  });
});
