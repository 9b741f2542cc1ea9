import { mkdir, mkdtemp, rm, writeFile, chmod } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandMissingError, type RunCommand } from '../platform/run-command.js';
import {
  createSystemHandlers,
  listNetworkInterfaces,
  parseApkPackages,
  parseCrontab,
  parseDpkgPackages,
  parseMounts,
  parsePasswd,
  parseRpmPackages,
} from './system.js';

describe('package list parsers', () => {
  it('dpkg: installed packages only, with arch', () => {
    const text =
      'bash\t5.2.15-2+b7\tamd64\tii \nlibc6\t2.36-9+deb12u4\tamd64\tii \nold-thing\t1.0\tall\trc \nbase-files\t12.4+deb12u5\tamd64\tii \n';
    expect(parseDpkgPackages(text)).toEqual([
      { name: 'bash', version: '5.2.15-2+b7', arch: 'amd64' },
      { name: 'libc6', version: '2.36-9+deb12u4', arch: 'amd64' },
      { name: 'base-files', version: '12.4+deb12u5', arch: 'amd64' },
    ]);
  });

  it('rpm: name, version-release, arch ((none) for noarch-less packages)', () => {
    const text =
      'bash\t5.1.8-6.el9\tx86_64\ngpg-pubkey\t8483c65d-5ccc5b19\t(none)\npython3-libs\t3.9.18-1.el9\tx86_64\n';
    expect(parseRpmPackages(text)).toEqual([
      { name: 'bash', version: '5.1.8-6.el9', arch: 'x86_64' },
      { name: 'gpg-pubkey', version: '8483c65d-5ccc5b19', arch: null },
      { name: 'python3-libs', version: '3.9.18-1.el9', arch: 'x86_64' },
    ]);
  });

  it('apk: names that contain dashes are split at the version', () => {
    const text =
      'musl-1.2.4-r2\nca-certificates-bundle-20230506-r0\nbusybox-binsh-1.36.1-r15\nlibcrypto3-3.1.4-r5\nWARNING: opening /x: No such file\n';
    expect(parseApkPackages(text)).toEqual([
      { name: 'musl', version: '1.2.4-r2', arch: null },
      { name: 'ca-certificates-bundle', version: '20230506-r0', arch: null },
      { name: 'busybox-binsh', version: '1.36.1-r15', arch: null },
      { name: 'libcrypto3', version: '3.1.4-r5', arch: null },
    ]);
  });
});

describe('system.packages', () => {
  const fake = (available: Record<string, string>): { run: RunCommand; calls: string[][] } => {
    const calls: string[][] = [];
    const run: RunCommand = (file, args) => {
      calls.push([file, ...args]);
      const stdout = available[file];
      return stdout === undefined
        ? Promise.reject(new CommandMissingError(file))
        : Promise.resolve({ code: 0, stdout, stderr: '' });
    };
    return { run, calls };
  };

  it('uses dpkg first, with a format string (argv, no shell)', async () => {
    const { run, calls } = fake({ 'dpkg-query': 'zsh\t5.9-4\tamd64\tii \nbash\t5.2\tamd64\tii \n', rpm: '' });
    const result = await createSystemHandlers({ runCommand: run })['system.packages']({});
    expect(result).toEqual({
      manager: 'dpkg',
      packages: [
        { name: 'bash', version: '5.2', arch: 'amd64' },
        { name: 'zsh', version: '5.9-4', arch: 'amd64' },
      ],
    });
    expect(calls).toEqual([
      ['dpkg-query', '-W', '-f', '${Package}\\t${Version}\\t${Architecture}\\t${db:Status-Abbrev}\\n'],
    ]);
  });

  it('falls back to rpm, then apk, then none', async () => {
    expect(
      (
        await createSystemHandlers({ runCommand: fake({ rpm: 'bash\t5.1-1\tx86_64\n' }).run })[
          'system.packages'
        ]({})
      ).manager,
    ).toBe('rpm');
    expect(
      (
        await createSystemHandlers({ runCommand: fake({ apk: 'musl-1.2.4-r2\n' }).run })['system.packages'](
          {},
        )
      ).manager,
    ).toBe('apk');
    expect(await createSystemHandlers({ runCommand: fake({}).run })['system.packages']({})).toEqual({
      manager: 'none',
      packages: [],
    });
  });

  it('reads the real package list of this machine', async () => {
    const result = await createSystemHandlers()['system.packages']({});
    expect(['dpkg', 'rpm', 'apk', 'none']).toContain(result.manager);
    if (result.manager !== 'none') expect(result.packages.length).toBeGreaterThan(5);
  });
});

describe('cron', () => {
  it('parses a system crontab: schedule, user, command; skips comments and variables', () => {
    const text = [
      'SHELL=/bin/sh',
      'PATH=/usr/local/sbin:/usr/local/bin:/sbin:/bin',
      '# m h dom mon dow user  command',
      '17 *	* * *	root    cd / && run-parts --report /etc/cron.hourly',
      '',
      '@reboot   root   /usr/local/bin/on-boot  --flag  "two  spaces"',
      '*/5 * * * * www-data php /var/www/cron.php >/dev/null 2>&1',
      'broken line',
    ].join('\n');
    expect(parseCrontab(text, '/etc/crontab', 'system')).toEqual([
      {
        source: '/etc/crontab',
        user: 'root',
        schedule: '17 * * * *',
        command: 'cd / && run-parts --report /etc/cron.hourly',
      },
      {
        source: '/etc/crontab',
        user: 'root',
        schedule: '@reboot',
        command: '/usr/local/bin/on-boot  --flag  "two  spaces"',
      },
      {
        source: '/etc/crontab',
        user: 'www-data',
        schedule: '*/5 * * * *',
        command: 'php /var/www/cron.php >/dev/null 2>&1',
      },
    ]);
  });

  it('parses a user crontab (no user field)', () => {
    const text = '# edit with crontab -e\nMAILTO=""\n0 3 * * 1 /home/ann/backup.sh\n@daily echo hi\n';
    expect(parseCrontab(text, '/var/spool/cron/crontabs/ann', { user: 'ann' })).toEqual([
      {
        source: '/var/spool/cron/crontabs/ann',
        user: 'ann',
        schedule: '0 3 * * 1',
        command: '/home/ann/backup.sh',
      },
      { source: '/var/spool/cron/crontabs/ann', user: 'ann', schedule: '@daily', command: 'echo hi' },
    ]);
  });

  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('collects /etc/crontab, cron.d and user crontabs, skipping hidden and backup files', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-cron-'));
    await mkdir(path.join(dir, 'etc', 'cron.d'), { recursive: true });
    await mkdir(path.join(dir, 'spool'), { recursive: true });
    await writeFile(path.join(dir, 'etc', 'crontab'), '0 1 * * * root /bin/a\n');
    await writeFile(path.join(dir, 'etc', 'cron.d', 'certbot'), '0 */12 * * * root certbot -q renew\n');
    await writeFile(path.join(dir, 'etc', 'cron.d', '.placeholder'), '0 0 * * * root /bin/hidden\n');
    await writeFile(path.join(dir, 'etc', 'cron.d', 'old~'), '0 0 * * * root /bin/backup\n');
    await writeFile(path.join(dir, 'spool', 'bob'), '5 4 * * * /home/bob/x\n');
    const result = await createSystemHandlers({
      cronEtc: path.join(dir, 'etc'),
      cronSpoolDirs: [path.join(dir, 'spool'), path.join(dir, 'missing')],
    })['system.cron']({});
    expect(result.jobs.map((j) => [j.user, j.command])).toEqual([
      ['root', '/bin/a'],
      ['root', 'certbot -q renew'],
      ['bob', '/home/bob/x'],
    ]);
  });

  // root reads everything; this check needs an unprivileged user
  it.skipIf(process.getuid?.() === 0)('leaves out crontabs it cannot read', async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-cron-'));
    await writeFile(path.join(dir, 'crontab'), '0 1 * * * root /bin/a\n');
    await chmod(path.join(dir, 'crontab'), 0o000);
    expect((await createSystemHandlers({ cronEtc: dir, cronSpoolDirs: [] })['system.cron']({})).jobs).toEqual(
      [],
    );
  });
});

describe('users, mounts, network', () => {
  it('parses /etc/passwd and skips malformed lines', () => {
    const text =
      'root:x:0:0:root:/root:/bin/bash\n# comment\nbroken:x:1\nann:x:1000:1000:Ann Example,,,:/home/ann:/usr/bin/zsh\nbad:x:abc:1:::\n';
    expect(parsePasswd(text)).toEqual([
      { name: 'root', uid: 0, gid: 0, gecos: 'root', home: '/root', shell: '/bin/bash' },
      {
        name: 'ann',
        uid: 1000,
        gid: 1000,
        gecos: 'Ann Example,,,',
        home: '/home/ann',
        shell: '/usr/bin/zsh',
      },
    ]);
  });

  it('reads this machine’s users', async () => {
    const { users } = await createSystemHandlers()['system.users']({});
    expect(users.find((u) => u.uid === 0)?.name).toBe('root');
  });

  it('parses /proc/mounts: decodes escapes, drops pseudo filesystems, last mount wins', () => {
    const text = [
      'proc /proc proc rw,nosuid 0 0',
      '/dev/sda1 / ext4 rw,relatime 0 0',
      'tmpfs /run tmpfs rw 0 0',
      '/dev/sdb1 /mnt/my\\040disk xfs rw 0 0',
      'overlay /var/lib/docker/overlay2/x/merged overlay rw 0 0',
      '/dev/sdc1 /mnt/my\\040disk ext4 rw 0 0',
    ].join('\n');
    expect(parseMounts(text)).toEqual([
      { device: '/dev/sda1', mount: '/', fstype: 'ext4' },
      { device: '/dev/sdc1', mount: '/mnt/my disk', fstype: 'ext4' },
      { device: 'overlay', mount: '/var/lib/docker/overlay2/x/merged', fstype: 'overlay' },
    ]);
  });

  it('reports this machine’s root filesystem with sizes', async () => {
    const { filesystems } = await createSystemHandlers()['system.disks']({});
    const root = filesystems.find((f) => f.mount === '/');
    expect(root).toBeDefined();
    expect(root?.size_bytes).toBeGreaterThan(0);
    expect((root?.used_bytes ?? 0) + (root?.available_bytes ?? 0)).toBeLessThanOrEqual(root?.size_bytes ?? 0);
  });

  it('lists network interfaces with addresses and a null MAC for loopback', () => {
    const interfaces = listNetworkInterfaces({
      lo: [
        {
          address: '127.0.0.1',
          netmask: '255.0.0.0',
          family: 'IPv4',
          mac: '00:00:00:00:00:00',
          internal: true,
          cidr: '127.0.0.1/8',
        },
      ],
      eth0: [
        {
          address: '192.168.1.20',
          netmask: '255.255.255.0',
          family: 'IPv4',
          mac: 'aa:bb:cc:dd:ee:ff',
          internal: false,
          cidr: '192.168.1.20/24',
        },
        {
          address: 'fe80::1',
          netmask: 'ffff:ffff:ffff:ffff::',
          family: 'IPv6',
          mac: 'aa:bb:cc:dd:ee:ff',
          internal: false,
          cidr: 'fe80::1/64',
          scopeid: 2,
        },
      ],
    });
    expect(interfaces).toEqual([
      {
        name: 'eth0',
        mac: 'aa:bb:cc:dd:ee:ff',
        internal: false,
        addresses: [
          { address: '192.168.1.20', family: 'IPv4', cidr: '192.168.1.20/24' },
          { address: 'fe80::1', family: 'IPv6', cidr: 'fe80::1/64' },
        ],
      },
      {
        name: 'lo',
        mac: null,
        internal: true,
        addresses: [{ address: '127.0.0.1', family: 'IPv4', cidr: '127.0.0.1/8' }],
      },
    ]);
  });
});
