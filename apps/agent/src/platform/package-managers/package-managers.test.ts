/**
 * The drivers' parsers and argv (decision 0082). The outputs below are recorded outputs, not live runs: written
 * from each manager's documented and observed formats (apt-get -s Inst/Remv lines and summary headings, dnf 4
 * and dnf 5 tables, zypper's --xmlout documents, pacman -Qu / --print, apk version / --simulate). apt is also
 * run for real, inside a Debian root, by apps/hub/src/e2e/package-updates.test.ts; dnf, zypper, pacman and apk
 * are checked only here (Debian packages dnf, zypper and pacman, but feeding them a repository of built rpm or
 * pacman packages in a test is not cheap; apk-tools is not in bookworm).
 */
import { describe, expect, it } from 'vitest';
import { parseApkSimulation, parseApkVersions, apkDriver } from './apk.js';
import { aptDriver, isSecurityRelease, parseAptSimulation, parseAptUpgrades } from './apt.js';
import { dnfDriver, parseDnfCheckUpdate, parseDnfSecurityNames, parseDnfTransaction } from './dnf.js';
import { findPackageManager } from './detect.js';
import { pacmanDriver, parsePacmanPrint, parsePacmanUpdates } from './pacman.js';
import type { Invocation, MachineProbe, PackageManagerDriver, RunInvocation, Selection } from './types.js';
import { parseZypperSummary, parseZypperUpdates, zypperDriver } from './zypper.js';
import { chmodSync, mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A runner answering recorded stdout per program, and remembering what it was asked to run. */
function recorded(outputs: Record<string, { code?: number; stdout: string }>) {
  const calls: Invocation[] = [];
  const run: RunInvocation = (invocation) => {
    calls.push(invocation);
    const key = [invocation.file, ...invocation.args].join(' ');
    const answer = outputs[key] ?? outputs[invocation.file];
    if (!answer) return Promise.reject(new Error(`unexpected run: ${key}`));
    return Promise.resolve({ code: answer.code ?? 0, stdout: answer.stdout, output: answer.stdout });
  };
  return { run, calls };
}

const none = recorded({}).run;
const all: Selection = { selection: 'all', packages: [] };
const security: Selection = { selection: 'security', packages: [] };
const named: Selection = { selection: 'named', packages: ['openssl', 'libc6'] };

function probe(files: Record<string, Date | true>, kernel = '6.1.0-18-amd64'): MachineProbe {
  return {
    exists: (file) => Promise.resolve(file in files),
    newestMtime: (paths) => {
      const dates = paths.map((p) => files[p]).filter((d): d is Date => d instanceof Date);
      return Promise.resolve(dates.length ? new Date(Math.max(...dates.map((d) => d.getTime()))) : null);
    },
    kernelRelease: () => kernel,
  };
}

async function argvOf(driver: PackageManagerDriver, selection: Selection, run: RunInvocation = none) {
  const simulation = await driver.simulation(run, selection);
  const application = await driver.application(run, selection);
  return {
    simulation: simulation && [simulation.file, ...simulation.args],
    application: application && [application.file, ...application.args],
  };
}

// ---- apt ---------------------------------------------------------------------------------------------

const aptDistUpgrade = `NOTE: This is only a simulation!
      apt-get needs root privileges for real execution.
Reading package lists...
Building dependency tree...
Reading state information...
Calculating upgrade...
The following NEW packages will be installed:
  linux-image-6.1.0-21-amd64
The following packages will be upgraded:
  libssl3 linux-image-amd64 openssl tzdata
4 upgraded, 1 newly installed, 0 to remove and 0 not upgraded.
Inst libssl3 [3.0.11-1~deb12u2] (3.0.13-1~deb12u1 Debian-Security:12/stable-security [amd64])
Inst openssl [3.0.11-1~deb12u2] (3.0.13-1~deb12u1 Debian:12.5/stable, Debian-Security:12/stable-security [amd64])
Inst linux-image-6.1.0-21-amd64 (6.1.90-1 Debian-Security:12/stable-security [amd64])
Inst linux-image-amd64 [6.1.76-1] (6.1.90-1 Debian-Security:12/stable-security [amd64])
Inst tzdata [2024a-0+deb12u1] (2025b-0+deb12u1 Debian:12.11/stable-updates [all])
Inst libfoo:i386 [1.0-1] (1.1-1 Ubuntu:22.04/jammy-security [i386])
Conf libssl3 (3.0.13-1~deb12u1 Debian-Security:12/stable-security [amd64])
Conf openssl (3.0.13-1~deb12u1 Debian:12.5/stable, Debian-Security:12/stable-security [amd64])
`;

const aptUpgradeKeptBack = `Reading package lists...
Building dependency tree...
Calculating upgrade...
The following packages were automatically installed and are no longer required:
  libold1
The following packages have been kept back:
  nginx nginx-common
The following packages will be REMOVED:
  oldthing
The following packages will be DOWNGRADED:
  pinned-lib
The following packages will be upgraded:
  curl
1 upgraded, 0 newly installed, 1 downgraded, 1 to remove and 2 not upgraded.
Remv oldthing [2.0-1]
Inst pinned-lib [2.0-1] (1.9-1 localhost [amd64])
Inst curl [7.88.1-10+deb12u5] (7.88.1-10+deb12u6 Debian:12.6/stable [amd64]) []
Conf curl (7.88.1-10+deb12u6 Debian:12.6/stable [amd64])
`;

describe('apt', () => {
  it('lists the upgrades of a simulated dist-upgrade, security by archive or label', () => {
    const updates = parseAptUpgrades(aptDistUpgrade);
    expect(updates.map((u) => [u.name, u.current_version, u.new_version, u.security])).toEqual([
      ['libssl3', '3.0.11-1~deb12u2', '3.0.13-1~deb12u1', true],
      ['openssl', '3.0.11-1~deb12u2', '3.0.13-1~deb12u1', true],
      ['linux-image-amd64', '6.1.76-1', '6.1.90-1', true],
      ['tzdata', '2024a-0+deb12u1', '2025b-0+deb12u1', false],
      ['libfoo:i386', '1.0-1', '1.1-1', true],
    ]);
    expect(updates[0]).toMatchObject({ arch: 'amd64', source: 'Debian-Security:12/stable-security' });
    expect(updates[3]?.source).toBe('Debian:12.11/stable-updates');
  });

  it('knows a security release string', () => {
    expect(isSecurityRelease('Debian-Security:12/stable-security')).toBe(true);
    expect(isSecurityRelease('Ubuntu:22.04/jammy-security')).toBe(true);
    expect(isSecurityRelease('Debian-Security:9/oldoldstable')).toBe(true);
    expect(isSecurityRelease('Debian:12.5/stable, Debian-Security:12/stable-security')).toBe(true);
    expect(isSecurityRelease('Debian:12.5/stable')).toBe(false);
    expect(isSecurityRelease('Ubuntu:22.04/jammy-updates')).toBe(false);
    expect(isSecurityRelease('localhost')).toBe(false);
  });

  it('reads a simulation: upgrades, installs, removals, downgrades and kept-back packages', () => {
    expect(parseAptSimulation(aptUpgradeKeptBack)).toEqual([
      { name: 'oldthing', action: 'remove', from_version: '2.0-1', to_version: null },
      { name: 'pinned-lib', action: 'downgrade', from_version: '2.0-1', to_version: '1.9-1' },
      { name: 'curl', action: 'upgrade', from_version: '7.88.1-10+deb12u5', to_version: '7.88.1-10+deb12u6' },
      { name: 'nginx', action: 'held', from_version: null, to_version: null },
      { name: 'nginx-common', action: 'held', from_version: null, to_version: null },
    ]);
    expect(parseAptSimulation(aptDistUpgrade)).toContainEqual({
      name: 'linux-image-6.1.0-21-amd64',
      action: 'install',
      from_version: null,
      to_version: '6.1.90-1',
    });
  });

  it('builds argv per selection: names after --, security from the listing, runs non-interactive', async () => {
    const { run, calls } = recorded({ 'apt-get': { stdout: aptDistUpgrade } });
    expect(await argvOf(aptDriver, all)).toEqual({
      simulation: ['apt-get', '-s', '-o', 'Debug::NoLocking=1', 'upgrade', '--with-new-pkgs'],
      application: [
        'apt-get',
        '-y',
        '-q',
        '-o',
        'Dpkg::Options::=--force-confdef',
        '-o',
        'Dpkg::Options::=--force-confold',
        'upgrade',
        '--with-new-pkgs',
      ],
    });
    expect((await argvOf(aptDriver, named)).simulation).toEqual([
      'apt-get',
      '-s',
      '-o',
      'Debug::NoLocking=1',
      'install',
      '--only-upgrade',
      '--',
      'openssl',
      'libc6',
    ]);
    const sec = await argvOf(aptDriver, security, run);
    expect(sec.application?.slice(-7)).toEqual([
      'install',
      '--only-upgrade',
      '--',
      'libssl3',
      'openssl',
      'linux-image-amd64',
      'libfoo:i386',
    ]);
    expect(calls[0]?.args).toEqual(['-s', '-o', 'Debug::NoLocking=1', 'dist-upgrade']);
  });

  it('selects nothing for security when nothing is marked, running no upgrade at all', async () => {
    const { run } = recorded({ 'apt-get': { stdout: 'Inst tzdata [1] (2 Debian:12/stable [all])\n' } });
    expect(await argvOf(aptDriver, security, run)).toEqual({ simulation: null, application: null });
  });

  it('fails a listing with the manager’s own words', async () => {
    const { run } = recorded({ 'apt-get': { code: 100, stdout: 'E: Could not open lock file' } });
    await expect(aptDriver.listUpdates(run)).rejects.toThrow(/exited with 100: E: Could not open lock file/);
  });

  it('reads the reboot marker and the last change from dpkg and apt logs', async () => {
    const older = new Date('2026-01-01T00:00:00Z');
    const newer = new Date('2026-02-01T00:00:00Z');
    const machine = probe({
      '/var/run/reboot-required': true,
      '/var/log/dpkg.log': newer,
      '/var/log/apt/history.log': older,
    });
    expect(await aptDriver.rebootRequired(none, machine)).toBe(true);
    expect(await aptDriver.rebootRequired(none, probe({}))).toBe(false);
    expect(await aptDriver.lastPatchedAt(machine)).toEqual(newer);
    expect(await aptDriver.lastPatchedAt(probe({}))).toBeNull();
  });
});

// ---- dnf ---------------------------------------------------------------------------------------------

const dnfCheckUpdate = `
curl.x86_64                          7.76.1-26.el9_3.3                  baseos
kernel.x86_64                        5.14.0-362.24.1.el9_3              baseos
python3-some-really-long-package-name-here.noarch
                                     1.2.3-4.el9                        appstream
openssl-libs.x86_64                  1:3.0.7-27.el9                     baseos
Obsoleting Packages
grub2-tools.x86_64                   1:2.06-70.el9_3.2                  baseos
    grub2-tools.x86_64               1:2.06-70.el9_3.1                  @baseos
`;

const dnfUpdateinfo = `RHSA-2024:1234 Important/Sec.  curl-7.76.1-26.el9_3.3.x86_64
RHSA-2024:1250 Important/Sec.  kernel-5.14.0-362.24.1.el9_3.x86_64
RHSA-2024:1250 Important/Sec.  kernel-core-5.14.0-362.24.1.el9_3.x86_64
`;

const dnf5Updateinfo = `Name                     Type     Severity  Package                          Issued
FEDORA-2024-aa11bb22cc   security Moderate  curl-8.6.0-8.fc40.x86_64         2024-05-01 10:00:00
`;

const dnf4Transaction = `Last metadata expiration check: 0:12:01 ago on Mon 01 Apr 2024 10:00:00 AM UTC.
Dependencies resolved.
================================================================================
 Package              Architecture  Version                  Repository   Size
================================================================================
Upgrading:
 curl                 x86_64        7.76.1-26.el9_3.3        baseos      294 k
 kernel               x86_64        5.14.0-362.24.1.el9_3    baseos      4.6 M
Installing dependencies:
 kernel-core          x86_64        5.14.0-362.24.1.el9_3    baseos       20 M
Removing:
 kernel-core          x86_64        5.14.0-284.11.1.el9_2    @baseos      60 M
Skipping packages with conflicts:
(add '--best --allowerasing' to command line to force their upgrade):
 broken-thing         x86_64        2.0-1.el9                appstream    10 k

Transaction Summary
================================================================================
Install  1 Package
Upgrade  2 Packages
Remove   1 Package

Total download size: 25 M
Operation aborted.
`;

const dnf5Transaction = `Updating and loading repositories:
Repositories loaded.
Package                    Arch   Version           Repository      Size
Upgrading:
 curl                      x86_64 8.6.0-8.fc40      updates    750.6 KiB
   replacing curl          x86_64 8.6.0-7.fc40      updates    749.0 KiB

Transaction Summary:
 Upgrading:          1 package
 Replacing:          1 package
Operation aborted by the user.
`;

describe('dnf', () => {
  it('lists check-update lines, joining wrapped names, stopping at obsoletes; security from updateinfo', () => {
    const secure = parseDnfSecurityNames(dnfUpdateinfo);
    expect([...secure]).toEqual(['curl', 'kernel', 'kernel-core']);
    expect([...parseDnfSecurityNames(dnf5Updateinfo)]).toEqual(['curl']);
    const updates = parseDnfCheckUpdate(dnfCheckUpdate, secure);
    expect(updates.map((u) => [u.name, u.arch, u.new_version, u.source, u.security])).toEqual([
      ['curl', 'x86_64', '7.76.1-26.el9_3.3', 'baseos', true],
      ['kernel', 'x86_64', '5.14.0-362.24.1.el9_3', 'baseos', true],
      ['python3-some-really-long-package-name-here', 'noarch', '1.2.3-4.el9', 'appstream', false],
      ['openssl-libs', 'x86_64', '1:3.0.7-27.el9', 'baseos', false],
    ]);
    expect(updates.every((u) => u.current_version === null)).toBe(true);
  });

  it('reads dnf 4 and dnf 5 transaction tables', () => {
    expect(parseDnfTransaction(dnf4Transaction)).toEqual([
      { name: 'curl', action: 'upgrade', from_version: null, to_version: '7.76.1-26.el9_3.3' },
      { name: 'kernel', action: 'upgrade', from_version: null, to_version: '5.14.0-362.24.1.el9_3' },
      { name: 'kernel-core', action: 'install', from_version: null, to_version: '5.14.0-362.24.1.el9_3' },
      { name: 'kernel-core', action: 'remove', from_version: '5.14.0-284.11.1.el9_2', to_version: null },
      { name: 'broken-thing', action: 'held', from_version: null, to_version: '2.0-1.el9' },
    ]);
    expect(parseDnfTransaction(dnf5Transaction)).toEqual([
      { name: 'curl', action: 'upgrade', from_version: '8.6.0-7.fc40', to_version: '8.6.0-8.fc40' },
    ]);
  });

  it('builds argv per selection; --assumeno is a simulation whose "aborted" exit is not a failure', async () => {
    expect(await argvOf(dnfDriver, all)).toEqual({
      simulation: ['dnf', '--assumeno', 'upgrade'],
      application: ['dnf', '-y', 'upgrade'],
    });
    expect(await argvOf(dnfDriver, security)).toEqual({
      simulation: ['dnf', '--assumeno', 'upgrade', '--security'],
      application: ['dnf', '-y', 'upgrade', '--security'],
    });
    expect((await argvOf(dnfDriver, named)).application).toEqual([
      'dnf',
      '-y',
      'upgrade',
      '--',
      'openssl',
      'libc6',
    ]);
    expect((await dnfDriver.simulation(none, all))?.okWhen?.test(dnf4Transaction)).toBe(true);
  });

  it('lists with exit 100 as "updates available", and asks needs-restarting about a reboot', async () => {
    const { run } = recorded({
      'dnf -q updateinfo list --security': { stdout: dnfUpdateinfo },
      'dnf -q check-update': { code: 100, stdout: dnfCheckUpdate },
      'needs-restarting -r': { code: 1, stdout: 'Reboot is required to fully utilize these updates.' },
    });
    expect(await dnfDriver.listUpdates(run)).toHaveLength(4);
    expect(await dnfDriver.rebootRequired(run, probe({}))).toBe(true);
  });
});

// ---- zypper ------------------------------------------------------------------------------------------

const zypperListUpdates = `<?xml version='1.0'?>
<stream>
<message type="info">Loading repository data...</message>
<message type="info">Reading installed packages...</message>
<update-status version="0.6">
<update-list>
<update kind="package" name="libzypp" edition="17.31.8-150400.3.32.1" arch="x86_64" edition-old="17.31.7-150400.3.29.1">
<summary>Library for package, patch, pattern and product management</summary>
<description>libzypp is the package management library</description>
<license>GPL-2.0-or-later</license>
<source url="http://download.opensuse.org/update/leap/15.5/sle" alias="repo-sle-update"/>
</update>
<update kind="package" name="curl" edition="8.0.1-150400.5.26.1" arch="x86_64" edition-old="8.0.1-150400.5.23.1">
<summary>A Tool for Transferring Data from URLs &amp; more</summary>
<source url="http://download.opensuse.org/update/leap/15.5/sle" alias="repo-sle-update"/>
</update>
</update-list>
</update-status>
</stream>
`;

const zypperPatchDryRun = `<?xml version='1.0'?>
<stream>
<install-summary download-size="1048576" space-usage-diff="0" packages-to-change="2">
<to-upgrade>
<solvable type="package" name="curl" edition="8.0.1-150400.5.26.1" arch="x86_64" edition-old="8.0.1-150400.5.23.1" repository="repo-sle-update"/>
<solvable type="patch" name="SUSE-2024-1234" edition="1" arch="noarch" repository="repo-sle-update"/>
</to-upgrade>
<to-install>
<solvable type="package" name="libnghttp2-14" edition="1.40.0-150200.12.1" arch="x86_64" repository="repo-sle-update"/>
</to-install>
<to-remove>
<solvable type="package" name="old-lib" edition="1.0-1.1" arch="x86_64" repository="@System"/>
</to-remove>
</install-summary>
</stream>
`;

describe('zypper', () => {
  it('lists updates from --xmlout list-updates, security from the security patches', async () => {
    const { run, calls } = recorded({
      'zypper --non-interactive --xmlout patch --category security --dry-run': { stdout: zypperPatchDryRun },
      'zypper --non-interactive --xmlout list-updates': { stdout: zypperListUpdates },
    });
    const updates = await zypperDriver.listUpdates(run);
    expect(updates).toEqual([
      {
        name: 'libzypp',
        current_version: '17.31.7-150400.3.29.1',
        new_version: '17.31.8-150400.3.32.1',
        arch: 'x86_64',
        source: 'repo-sle-update',
        security: false,
      },
      expect.objectContaining({ name: 'curl', security: true }),
    ]);
    expect(calls).toHaveLength(2);
    expect(parseZypperUpdates('<update kind="patch" name="x" edition="1"/>', new Set())).toEqual([]);
  });

  it('reads an install summary (packages only)', () => {
    expect(parseZypperSummary(zypperPatchDryRun)).toEqual([
      {
        name: 'curl',
        action: 'upgrade',
        from_version: '8.0.1-150400.5.23.1',
        to_version: '8.0.1-150400.5.26.1',
      },
      { name: 'libnghttp2-14', action: 'install', from_version: null, to_version: '1.40.0-150200.12.1' },
      { name: 'old-lib', action: 'remove', from_version: '1.0-1.1', to_version: null },
    ]);
  });

  it('builds argv per selection, names after --', async () => {
    const base = ['zypper', '--non-interactive', '--xmlout'];
    expect(await argvOf(zypperDriver, all)).toEqual({
      simulation: [...base, 'update', '--dry-run'],
      application: [...base, 'update', '--auto-agree-with-licenses'],
    });
    expect(await argvOf(zypperDriver, security)).toEqual({
      simulation: [...base, 'patch', '--dry-run', '--category', 'security'],
      application: [...base, 'patch', '--auto-agree-with-licenses', '--category', 'security'],
    });
    expect((await argvOf(zypperDriver, named)).simulation).toEqual([
      ...base,
      'update',
      '--dry-run',
      '--',
      'openssl',
      'libc6',
    ]);
  });

  it('needs a reboot by /run/reboot-needed or needs-rebooting exit 102', async () => {
    expect(await zypperDriver.rebootRequired(none, probe({ '/run/reboot-needed': true }))).toBe(true);
    const { run } = recorded({ 'zypper needs-rebooting': { code: 102, stdout: '' } });
    expect(await zypperDriver.rebootRequired(run, probe({}))).toBe(true);
  });
});

// ---- pacman and apk ----------------------------------------------------------------------------------

describe('pacman', () => {
  it('lists -Qu / checkupdates lines, none of them security', () => {
    expect(
      parsePacmanUpdates('linux 6.8.1.arch1-1 -> 6.8.2.arch1-1\nvim 9.1.0-1 -> 9.1.0100-1 [ignored]\n'),
    ).toEqual([
      {
        name: 'linux',
        current_version: '6.8.1.arch1-1',
        new_version: '6.8.2.arch1-1',
        arch: null,
        source: null,
        security: false,
      },
      expect.objectContaining({ name: 'vim', new_version: '9.1.0100-1', security: false }),
    ]);
    expect(pacmanDriver.marksSecurity).toBe(false);
  });

  it('reads --print targets and builds argv (named: -S --needed -- names)', async () => {
    expect(parsePacmanPrint('linux 6.8.2.arch1-1\n:: Synchronizing\nvim 9.1.0100-1\n')).toEqual([
      { name: 'linux', action: 'upgrade', from_version: null, to_version: '6.8.2.arch1-1' },
      { name: 'vim', action: 'upgrade', from_version: null, to_version: '9.1.0100-1' },
    ]);
    expect(await argvOf(pacmanDriver, all)).toEqual({
      simulation: ['pacman', '-Su', '--print', '--print-format', '%n %v'],
      application: ['pacman', '-Syu', '--noconfirm'],
    });
    expect((await argvOf(pacmanDriver, named)).application).toEqual([
      'pacman',
      '-S',
      '--needed',
      '--noconfirm',
      '--',
      'openssl',
      'libc6',
    ]);
  });

  it('needs a reboot when the running kernel’s modules are gone, never in a container without any', async () => {
    expect(await pacmanDriver.rebootRequired(none, probe({ '/usr/lib/modules': true }))).toBe(true);
    expect(
      await pacmanDriver.rebootRequired(
        none,
        probe({ '/usr/lib/modules': true, '/usr/lib/modules/6.1.0-18-amd64': true }),
      ),
    ).toBe(false);
    expect(await pacmanDriver.rebootRequired(none, probe({}))).toBe(false);
  });
});

describe('apk', () => {
  it('lists `apk version -l <` lines, splitting the name from its version', () => {
    const listed = parseApkVersions(
      'Installed:                                Available:\nbusybox-1.36.1-r2                       < 1.36.1-r5\npy3-foo-bar-2.0-r0                      < 2.1-r0\n',
    );
    expect(listed.map((u) => [u.name, u.current_version, u.new_version, u.security])).toEqual([
      ['busybox', '1.36.1-r2', '1.36.1-r5', false],
      ['py3-foo-bar', '2.0-r0', '2.1-r0', false],
    ]);
  });

  it('reads --simulate lines and builds argv', async () => {
    expect(
      parseApkSimulation(
        '(1/3) Upgrading musl (1.2.4-r1 -> 1.2.4-r2)\n(2/3) Installing foo (1.0-r0)\n(3/3) Purging bar (2.0-r1)\nOK: 10 MiB in 20 packages\n',
      ),
    ).toEqual([
      { name: 'musl', action: 'upgrade', from_version: '1.2.4-r1', to_version: '1.2.4-r2' },
      { name: 'foo', action: 'install', from_version: null, to_version: '1.0-r0' },
      { name: 'bar', action: 'remove', from_version: '2.0-r1', to_version: null },
    ]);
    expect(await argvOf(apkDriver, all)).toEqual({
      simulation: ['apk', 'upgrade', '--simulate', '--no-progress'],
      application: ['apk', 'upgrade', '--no-progress'],
    });
    expect((await argvOf(apkDriver, named)).simulation).toEqual([
      'apk',
      'add',
      '--upgrade',
      '--simulate',
      '--no-progress',
      '--',
      'openssl',
      'libc6',
    ]);
  });
});

describe('detection', () => {
  it('finds the first manager whose program is an executable on the PATH, apt before the others', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-pm-detect-'));
    try {
      const a = path.join(dir, 'a');
      const b = path.join(dir, 'b');
      mkdirSync(a);
      mkdirSync(b);
      expect(await findPackageManager(`${a}:${b}`)).toBeNull();
      writeFileSync(path.join(a, 'dnf'), '#!/bin/sh\n', { mode: 0o755 });
      expect(await findPackageManager(`${a}:${b}`)).toBe('dnf');
      writeFileSync(path.join(b, 'apt-get'), '', { mode: 0o644 }); // not executable: not a manager
      expect(await findPackageManager(`${a}:${b}`)).toBe('dnf');
      chmodSync(path.join(b, 'apt-get'), 0o755);
      expect(await findPackageManager(`relative:${a}:${b}`)).toBe('apt');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
