import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '@svc/hub';
import { startTestHub } from '@svc/testkit';
import { secureDataDir } from './data-dir.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-data-dir-'));
  made.push(dir);
  return dir;
}

const modeOf = (p: string) => fs.lstatSync(p).mode & 0o777;

/** Every file and folder under `dir` with its mode, relative paths, folders ending in `/`. */
function modesUnder(dir: string): Map<string, number> {
  const modes = new Map<string, number>([['/', modeOf(dir)]]);
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const name = path.relative(dir, full) + (entry.isDirectory() ? '/' : '');
    modes.set(name, modeOf(full));
  }
  return modes;
}

describe('secureDataDir', () => {
  it('tightens a loosened data directory: folders 0700, files 0600, the public TLS folder kept', () => {
    const dir = path.join(tempDir(), 'data');
    fs.mkdirSync(path.join(dir, 'local-agent'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'tls'));
    fs.writeFileSync(path.join(dir, 'hub.sqlite'), '');
    fs.writeFileSync(path.join(dir, 'encryption.key'), 'k');
    fs.writeFileSync(path.join(dir, 'local-agent', 'settings.json'), '{}');
    fs.writeFileSync(path.join(dir, 'tls', 'ca.crt'), 'public');
    for (const p of ['', 'local-agent', 'tls']) fs.chmodSync(path.join(dir, p), 0o755);
    for (const p of ['hub.sqlite', 'encryption.key', 'local-agent/settings.json', 'tls/ca.crt'])
      fs.chmodSync(path.join(dir, p), 0o644);

    const report = secureDataDir(dir, ['tls']);

    expect(report.problems).toEqual([]);
    expect(report.tightened).toHaveLength(5);
    expect(Object.fromEntries(modesUnder(dir))).toEqual({
      '/': 0o700,
      'local-agent/': 0o700,
      'local-agent/settings.json': 0o600,
      'hub.sqlite': 0o600,
      'encryption.key': 0o600,
      'tls/': 0o755,
      'tls/ca.crt': 0o644,
    });
    // Already private: nothing more to do.
    expect(secureDataDir(dir, ['tls']).tightened).toEqual([]);
  });

  it('does not follow a symbolic link out of the data directory', () => {
    const root = tempDir();
    const outside = path.join(root, 'outside.txt');
    fs.writeFileSync(outside, 'not the hub');
    fs.chmodSync(outside, 0o644);
    const dir = path.join(root, 'data');
    fs.mkdirSync(dir);
    fs.symlinkSync(outside, path.join(dir, 'link'));
    secureDataDir(dir);
    expect(modeOf(outside)).toBe(0o644);
  });

  it('makes a missing data directory 0700 whatever the umask', () => {
    const dir = path.join(tempDir(), 'fresh', 'data');
    secureDataDir(dir);
    expect(modeOf(dir)).toBe(0o700);
  });
});

describe('the hub on its data directory', () => {
  it.each([
    ['a fresh data directory', false],
    ['an older, world-readable data directory', true],
  ])('leaves no file another local user can read in %s (files 0600)', async (_name, loosened) => {
    const dir = path.join(tempDir(), 'data');
    if (loosened) {
      fs.mkdirSync(dir, { mode: 0o755 });
      fs.chmodSync(dir, 0o755);
      fs.writeFileSync(path.join(dir, 'hub.sqlite'), '', { mode: 0o644 });
      fs.chmodSync(path.join(dir, 'hub.sqlite'), 0o644);
    }
    const t = await startTestHub({
      env: { SVC_TLS_MODE: 'auto', SVC_DATA_DIR: dir },
      injectAsHttps: true,
      clock: new ManualClock(new Date()),
    });
    try {
      // A write, so the WAL and its index exist while the hub runs.
      expect((await t.request('POST', '/api/v2/assets', { body: { name: 'mode-check' } })).status).toBe(201);
      const modes = modesUnder(dir);
      expect([...modes.keys()]).toEqual(
        expect.arrayContaining(['hub.sqlite', 'hub.sqlite-wal', 'hub.sqlite-shm', 'encryption.key']),
      );
      for (const [name, mode] of modes) {
        if (name.startsWith('tls/')) continue; // the public CA certificate, shareable by design
        expect(mode.toString(8), name).toBe(name.endsWith('/') ? '700' : '600');
      }
    } finally {
      await t.close();
    }
  });
});
