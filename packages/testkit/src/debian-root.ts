/**
 * A real Debian root for the agent's package-manager tests (decision 0082): the debootstrap minbase tarball
 * that deploy/container/prepare-base.sh makes (`.cache/container-base/debian-bookworm-minbase.tar`, or
 * SVC_BASE_TARBALL), extracted into a temporary directory. Programs run inside it with `unshare --mount
 * --root=<dir> --mount-proc`: a mount namespace of their own with /proc mounted in it, so nothing is ever
 * mounted on the machine and nothing is left to unmount (the namespace goes with its last process). The
 * network is the machine's: loopback only is reached (the root's sources.list is emptied; apt sees only the
 * `file:` repositories a test adds, each `[trusted=yes]`).
 *
 * Packages are made with `dpkg-deb --build` (their maintainer scripts are plain sh written by the test), a
 * repository is a flat `Packages` + `Release` written here (no dpkg-dev needed), whose Release `Suite`/`Label`
 * say what apt reports as the origin (`bookworm-security` / `Debian-Security` for a security archive).
 *
 * Needs root, `unshare` (util-linux), `dpkg-deb` and `tar`. debianRootMissing() says what is missing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** Where prepare-base.sh writes the base by default, or SVC_BASE_TARBALL as it reads it. */
export function debianBaseTarball(): string {
  return (
    process.env['SVC_BASE_TARBALL'] ??
    path.join(repoRoot, '.cache/container-base/debian-bookworm-minbase.tar')
  );
}

/** The base's absence as the reason a test skips (CI prepares it, so there it is a failure instead). */
export const debianBaseMissingReason = `the Debian base ${path.relative(repoRoot, debianBaseTarball())} is not prepared (as root: deploy/container/prepare-base.sh, which runs debootstrap against the Debian mirror)`;

function onPath(program: string): boolean {
  return (process.env['PATH'] ?? '/usr/bin:/bin')
    .split(':')
    .some((dir) => dir && fs.existsSync(path.join(dir, program)));
}

/** Why a Debian root cannot be made here, or null when it can. */
export function debianRootMissing(): string | null {
  if (process.platform !== 'linux') return 'a Debian root needs Linux';
  if (process.getuid?.() !== 0) return 'a Debian root needs root (extracting device nodes, unshare --mount)';
  for (const program of ['unshare', 'dpkg-deb', 'tar']) {
    if (!onPath(program)) return `${program} is not installed`;
  }
  if (!fs.existsSync(debianBaseTarball())) return debianBaseMissingReason;
  return null;
}

/** The environment of programs in the root: a known PATH and locale, nothing of the test's own. */
export const debianRootEnv: Readonly<Record<string, string>> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  LC_ALL: 'C',
  HOME: '/root',
  DEBIAN_FRONTEND: 'noninteractive',
};

export interface DebPackage {
  name: string;
  version: string;
  /** Files the package installs: absolute path in the root → content. */
  files?: Record<string, string>;
  /** Body of its postinst (sh), run by dpkg after unpacking. */
  postinst?: string;
}

export interface AptRepository {
  /** Its directory name under /srv/repos in the root. */
  name: string;
  /** Release `Suite` (what apt shows as the archive: `bookworm-security` marks security). */
  suite: string;
  /** Release `Label` (`Debian-Security` for Debian's security archive). */
  label: string;
  packages: DebPackage[];
}

export interface DebianRoot {
  readonly dir: string;
  /** Runs argv in the root (own mount namespace, /proc mounted) to its end; never throws on an exit code. */
  exec(
    argv: readonly string[],
    env?: Record<string, string>,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Starts argv in the root as a long-running child (the agent); the caller stops it. */
  start(argv: readonly string[], env?: Record<string, string>): ChildProcess;
  /** Builds a .deb with dpkg-deb and returns its path on the host (outside the root). */
  buildDeb(pkg: DebPackage): Promise<string>;
  /** Builds the packages and installs them in the root with `dpkg -i`. */
  install(packages: readonly DebPackage[]): Promise<void>;
  /** A flat `[trusted=yes]` file: repository in the root with its own sources.list.d entry. */
  addRepository(repo: AptRepository): Promise<void>;
  /** `dpkg-query -W` version of a package in the root, null when not installed. */
  installedVersion(name: string): Promise<string | null>;
  /** Puts a host directory's files under `target` in the root (copied; hard links where possible). */
  copyIn(source: string, target: string): void;
  close(): Promise<void>;
}

function copyTree(source: string, target: string): void {
  const stat = fs.statSync(source);
  if (stat.isDirectory()) {
    fs.mkdirSync(target, { recursive: true });
    for (const entry of fs.readdirSync(source)) copyTree(path.join(source, entry), path.join(target, entry));
    return;
  }
  fs.mkdirSync(path.dirname(target), { recursive: true });
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target);
  }
}

function releaseFile(repo: AptRepository, indexes: { name: string; body: Buffer }[]): string {
  const sums = indexes.map(
    (index) =>
      ` ${createHash('sha256').update(index.body).digest('hex')} ${String(index.body.length)} ${index.name}`,
  );
  return [
    `Origin: svc-test`,
    `Label: ${repo.label}`,
    `Suite: ${repo.suite}`,
    `Codename: ${repo.suite}`,
    'Version: 12',
    `Date: ${new Date().toUTCString()}`,
    'Architectures: all amd64 arm64',
    'SHA256:',
    ...sums,
    '',
  ].join('\n');
}

/** Extracts the base into a fresh temporary directory and empties its apt sources. */
export async function createDebianRoot(): Promise<DebianRoot> {
  const why = debianRootMissing();
  if (why) throw new Error(why);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-debian-root-'));
  const dir = path.join(work, 'root');
  const debs = path.join(work, 'debs');
  fs.mkdirSync(dir);
  fs.mkdirSync(debs);
  await run('tar', ['--numeric-owner', '-xf', debianBaseTarball(), '-C', dir], { timeout: 120_000 });
  // Only the repositories a test adds: nothing from the network.
  fs.writeFileSync(path.join(dir, 'etc/apt/sources.list'), '');
  fs.rmSync(path.join(dir, 'etc/apt/sources.list.d'), { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'etc/apt/sources.list.d'));

  const inRoot = (argv: readonly string[]) => [
    '--mount',
    '--propagation',
    'private',
    `--root=${dir}`,
    '--mount-proc',
    '--',
    ...argv,
  ];
  const children = new Set<ChildProcess>();

  const root: DebianRoot = {
    dir,
    async exec(argv, env = {}) {
      try {
        const { stdout, stderr } = await run('unshare', inRoot(argv), {
          env: { ...debianRootEnv, ...env },
          timeout: 120_000,
          maxBuffer: 16 * 1024 * 1024,
        });
        return { code: 0, stdout, stderr };
      } catch (error) {
        const failure = error as { code?: unknown; stdout?: string; stderr?: string };
        if (typeof failure.code !== 'number') throw error;
        return { code: failure.code, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
      }
    },
    start(argv, env = {}) {
      const child = spawn('unshare', inRoot(argv), {
        env: { ...debianRootEnv, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      child.once('exit', () => children.delete(child));
      return child;
    },
    async buildDeb(pkg) {
      const tree = path.join(debs, `${pkg.name}_${pkg.version}`);
      fs.mkdirSync(path.join(tree, 'DEBIAN'), { recursive: true });
      fs.writeFileSync(
        path.join(tree, 'DEBIAN/control'),
        [
          `Package: ${pkg.name}`,
          `Version: ${pkg.version}`,
          'Architecture: all',
          'Maintainer: svc tests <tests@svc.invalid>',
          `Description: ${pkg.name} ${pkg.version}, made by a test`,
          '',
        ].join('\n'),
      );
      if (pkg.postinst !== undefined)
        fs.writeFileSync(path.join(tree, 'DEBIAN/postinst'), `#!/bin/sh\nset -e\n${pkg.postinst}\n`, {
          mode: 0o755,
        });
      for (const [file, content] of Object.entries(pkg.files ?? {})) {
        const target = path.join(tree, file);
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, content);
      }
      const deb = `${tree}.deb`;
      await run('dpkg-deb', ['--root-owner-group', '-Zgzip', '--build', tree, deb], { timeout: 60_000 });
      return deb;
    },
    async install(packages) {
      const inside: string[] = [];
      fs.mkdirSync(path.join(dir, 'tmp/debs'), { recursive: true });
      for (const pkg of packages) {
        const deb = await root.buildDeb(pkg);
        fs.copyFileSync(deb, path.join(dir, 'tmp/debs', path.basename(deb)));
        inside.push(`/tmp/debs/${path.basename(deb)}`);
      }
      const result = await root.exec(['dpkg', '-i', ...inside]);
      if (result.code !== 0) throw new Error(`dpkg -i failed: ${result.stdout}${result.stderr}`);
    },
    async addRepository(repo) {
      const repoDir = path.join(dir, 'srv/repos', repo.name);
      fs.mkdirSync(repoDir, { recursive: true });
      const stanzas: string[] = [];
      for (const pkg of repo.packages) {
        const deb = await root.buildDeb(pkg);
        const file = path.basename(deb);
        fs.copyFileSync(deb, path.join(repoDir, file));
        const body = fs.readFileSync(deb);
        const control = (await run('dpkg-deb', ['-f', deb])).stdout.trimEnd();
        stanzas.push(
          [
            control,
            `Filename: ./${file}`,
            `Size: ${String(body.length)}`,
            `SHA256: ${createHash('sha256').update(body).digest('hex')}`,
          ].join('\n'),
        );
      }
      const packagesIndex = Buffer.from(`${stanzas.join('\n\n')}\n`);
      fs.writeFileSync(path.join(repoDir, 'Packages'), packagesIndex);
      fs.writeFileSync(
        path.join(repoDir, 'Release'),
        releaseFile(repo, [{ name: 'Packages', body: packagesIndex }]),
      );
      fs.writeFileSync(
        path.join(dir, 'etc/apt/sources.list.d', `${repo.name}.list`),
        `deb [trusted=yes] file:/srv/repos/${repo.name} ./\n`,
      );
    },
    async installedVersion(name) {
      const result = await root.exec(['dpkg-query', '-W', '-f', '${Version}', '--', name]);
      return result.code === 0 && result.stdout ? result.stdout : null;
    },
    copyIn(source, target) {
      copyTree(source, path.join(dir, target));
    },
    async close() {
      await Promise.all(
        [...children].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) {
                resolve();
                return;
              }
              child.once('exit', () => {
                resolve();
              });
              child.kill('SIGKILL');
            }),
        ),
      );
      fs.rmSync(work, { recursive: true, force: true });
    },
  };
  return root;
}
