/**
 * `svc-hub --version`, `--help` and the operator's commands load what they use and not the hub's server: the
 * built entry imports the server's chunk only to run the hub. Checked by the modules the process loads (a
 * module hook records each), not by timing.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { hubVersion } from '../platform/version.js';

const hubBin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/svc-hub.js');
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-hub-cli-'));
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

/** A preload that writes every module URL the process loads (ES modules and require) to SVC_TEST_MODULES. */
const recorder = path.join(work, 'record-modules.mjs');
fs.writeFileSync(
  recorder,
  [
    "import { registerHooks } from 'node:module';",
    "import { appendFileSync } from 'node:fs';",
    'registerHooks({',
    '  load(url, context, nextLoad) {',
    "    appendFileSync(process.env.SVC_TEST_MODULES, url + '\\n');",
    '    return nextLoad(url, context);',
    '  },',
    '});',
  ].join('\n'),
);

function run(args: string[], env: Record<string, string> = {}) {
  const list = path.join(work, `modules-${String(Math.random()).slice(2)}.txt`);
  const result = spawnSync(process.execPath, ['--import', recorder, hubBin, ...args], {
    env: { ...process.env, SVC_TEST_MODULES: list, ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const modules = fs.existsSync(list) ? fs.readFileSync(list, 'utf8').split('\n').filter(Boolean) : [];
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, modules };
}

/** What only running the hub needs: its server chunk and the packages of the web server and the database. */
const serverOnly =
  /\/dist\/serve-[^/]*\.js$|\/node_modules\/(fastify|better-sqlite3|kysely|pg|bcrypt|pino|ws)\//;

describe('svc-hub loads what a command needs', () => {
  it('--version and --help load neither the server nor its packages, nor the settings schemas', () => {
    for (const args of [['--version'], ['--help']]) {
      const { code, stdout, modules } = run(args);
      expect(code, args.join(' ')).toBe(0);
      if (args[0] === '--version') expect(stdout.trim()).toBe(hubVersion);
      // The recorder saw the program: the entry and commander.
      expect(modules.some((url) => url.endsWith('/apps/hub/dist/main.js'))).toBe(true);
      expect(modules.some((url) => url.includes('/node_modules/commander/'))).toBe(true);
      expect(modules.filter((url) => serverOnly.test(url) || url.includes('/node_modules/typebox/'))).toEqual(
        [],
      );
    }
  });

  it('migrate --dry-run loads the database, not the server', () => {
    const dataDir = path.join(work, 'data');
    const { code, stdout, stderr, modules } = run(['migrate', '--dry-run'], {
      SVC_DATA_DIR: dataDir,
      SVC_TLS_MODE: 'disabled',
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('migration');
    expect(modules.some((url) => url.includes('/node_modules/kysely/'))).toBe(true);
    expect(modules.filter((url) => /\/dist\/serve-[^/]*\.js$|\/node_modules\/fastify\//.test(url))).toEqual(
      [],
    );
  });
});
