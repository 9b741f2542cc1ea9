/**
 * system.*: network interfaces, filesystems, installed packages, cron jobs, local users. Each reader has a
 * pure parser (tested with fixture text) and takes its file locations and command runner as options.
 */
import { readFile, readdir, statfs } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type {
  AgentRequestResult,
  CronJob,
  Filesystem,
  NetworkInterface,
  PackageInfo,
  SystemUser,
} from '@svc/protocol';
import {
  CommandMissingError,
  runCommand as defaultRunCommand,
  type RunCommand,
} from '../platform/run-command.js';
import { AgentError } from './agent-error.js';
import type { HandlerMap } from './types.js';
import { byName } from './by-name.js';

/** Cuts text to a catalog field's length, so one odd entry cannot void a whole list. */
const clip = (text: string, max: number) => (text.length > max ? text.slice(0, max) : text);

// ---- users ---------------------------------------------------------------------------------------------

/** /etc/passwd: `name:password:uid:gid:gecos:home:shell`; malformed lines are skipped. */
export function parsePasswd(text: string): SystemUser[] {
  const users: SystemUser[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith('#')) continue;
    const parts = line.split(':');
    if (parts.length < 7) continue;
    const [name = '', , uid = '', gid = '', gecos = '', home = '', shell = ''] = parts;
    if (!name || !/^\d+$/.test(uid) || !/^\d+$/.test(gid)) continue;
    users.push({
      name: clip(name, 256),
      uid: Number(uid),
      gid: Number(gid),
      gecos: clip(gecos, 1024),
      home: clip(home, 1024),
      shell: clip(shell, 1024),
    });
  }
  return users;
}

// ---- network -------------------------------------------------------------------------------------------

export function listNetworkInterfaces(
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): NetworkInterface[] {
  const result: NetworkInterface[] = [];
  for (const [name, infos = []] of Object.entries(interfaces)) {
    const mac = infos.find((i) => i.mac && i.mac !== '00:00:00:00:00:00')?.mac ?? null;
    result.push({
      name: clip(name, 256),
      mac,
      internal: infos.length > 0 && infos.every((i) => i.internal),
      addresses: infos.map((i) => ({
        address: i.address,
        family: i.family === 'IPv6' ? ('IPv6' as const) : ('IPv4' as const),
        cidr: i.cidr,
      })),
    });
  }
  return result.sort(byName);
}

// ---- disks ---------------------------------------------------------------------------------------------

export interface MountEntry {
  device: string;
  mount: string;
  fstype: string;
}

/** Kernel and virtual filesystems that are not disks. */
const pseudoFilesystems = new Set([
  'proc',
  'sysfs',
  'devtmpfs',
  'devpts',
  'tmpfs',
  'cgroup',
  'cgroup2',
  'securityfs',
  'debugfs',
  'tracefs',
  'pstore',
  'bpf',
  'mqueue',
  'hugetlbfs',
  'configfs',
  'fusectl',
  'autofs',
  'binfmt_misc',
  'rpc_pipefs',
  'nsfs',
  'selinuxfs',
  'efivarfs',
  'ramfs',
  'squashfs',
  'fuse.gvfsd-fuse',
  'fuse.portal',
  'overlay.lower',
  'devfs',
  'sunrpc',
]);

/** /proc/mounts lines, with the octal escapes (`\040` for a space) decoded; pseudo filesystems left out. */
export function parseMounts(text: string): MountEntry[] {
  const decode = (s: string) =>
    s.replace(/\\([0-7]{3})/g, (_m, octal: string) => String.fromCharCode(parseInt(octal, 8)));
  const byMount = new Map<string, MountEntry>();
  for (const line of text.split('\n')) {
    const [device, mount, fstype] = line.trim().split(/\s+/);
    if (!device || !mount || !fstype || pseudoFilesystems.has(fstype)) continue;
    // A later mount over the same point hides the earlier one.
    byMount.set(decode(mount), {
      device: clip(decode(device), 1024),
      mount: decode(mount),
      fstype: clip(fstype, 64),
    });
  }
  return [...byMount.values()];
}

// ---- packages ------------------------------------------------------------------------------------------

/** `dpkg-query -W -f '${Package}\t${Version}\t${Architecture}\t${db:Status-Abbrev}\n'`: installed ones only. */
export function parseDpkgPackages(text: string): PackageInfo[] {
  const packages: PackageInfo[] = [];
  for (const line of text.split('\n')) {
    const [name, version, arch, status] = line.split('\t');
    if (!name || version === undefined) continue;
    if (status !== undefined && !status.startsWith('ii')) continue;
    packages.push({ name: clip(name, 256), version: clip(version, 256), arch: arch ? clip(arch, 64) : null });
  }
  return packages;
}

/** `rpm -qa --qf '%{NAME}\t%{VERSION}-%{RELEASE}\t%{ARCH}\n'`. */
export function parseRpmPackages(text: string): PackageInfo[] {
  const packages: PackageInfo[] = [];
  for (const line of text.split('\n')) {
    const [name, version, arch] = line.split('\t');
    if (!name || version === undefined) continue;
    packages.push({
      name: clip(name, 256),
      version: clip(version, 256),
      arch: arch && arch !== '(none)' ? clip(arch, 64) : null,
    });
  }
  return packages;
}

/** `apk info -v`: `name-version-rN` per line, where the name itself may contain dashes. */
export function parseApkPackages(text: string): PackageInfo[] {
  const packages: PackageInfo[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('WARNING')) continue;
    const match = /^(.+)-([0-9][^-]*)-(r\d+)$/.exec(line);
    if (match?.[1] && match[2] && match[3])
      packages.push({ name: clip(match[1], 256), version: clip(`${match[2]}-${match[3]}`, 256), arch: null });
    else packages.push({ name: clip(line, 256), version: '', arch: null });
  }
  return packages;
}

// ---- cron ----------------------------------------------------------------------------------------------

/**
 * A crontab. System crontabs (/etc/crontab, /etc/cron.d/*) have a user field after the schedule; a user's
 * own crontab does not. Comments, blank lines and `NAME=value` lines are skipped.
 */
export function parseCrontab(text: string, source: string, format: { user: string } | 'system'): CronJob[] {
  const jobs: CronJob[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (/^[A-Za-z_][A-Za-z0-9_]*\s*=/.test(line)) continue;
    const fields = line.split(/\s+/);
    const scheduleLength = fields[0]?.startsWith('@') ? 1 : 5;
    const userLength = format === 'system' ? 1 : 0;
    if (fields.length <= scheduleLength + userLength) continue;
    const schedule = fields.slice(0, scheduleLength).join(' ');
    const user = format === 'system' ? (fields[scheduleLength] ?? null) : format.user;
    // The command keeps its own spacing: cut the leading fields off the original line.
    let rest = line;
    for (let i = 0; i < scheduleLength + userLength; i++) rest = rest.replace(/^\S+\s+/, '');
    jobs.push({
      source: clip(source, 1024),
      user: user === null ? null : clip(user, 256),
      schedule: clip(schedule, 256),
      command: clip(rest, 4096),
    });
  }
  return jobs;
}

// ---- handlers ------------------------------------------------------------------------------------------

export interface SystemOptions {
  runCommand?: RunCommand;
  mountsPath?: string;
  passwdPath?: string;
  /** Directory holding crontab, cron.d/ (normally /etc). */
  cronEtc?: string;
  /** User crontab directories (Debian's and Red Hat's). */
  cronSpoolDirs?: string[];
}

type SystemRequest = 'system.network' | 'system.disks' | 'system.packages' | 'system.cron' | 'system.users';

export function createSystemHandlers(options: SystemOptions = {}): Pick<HandlerMap, SystemRequest> {
  const run = options.runCommand ?? defaultRunCommand;
  const mountsPath = options.mountsPath ?? '/proc/mounts';
  const passwdPath = options.passwdPath ?? '/etc/passwd';
  const cronEtc = options.cronEtc ?? '/etc';
  const spoolDirs = options.cronSpoolDirs ?? ['/var/spool/cron/crontabs', '/var/spool/cron'];

  async function disks(): Promise<AgentRequestResult<'system.disks'>> {
    let text: string;
    try {
      text = await readFile(mountsPath, 'utf8');
    } catch {
      throw new AgentError('unsupported', `cannot read ${mountsPath}`);
    }
    const filesystems: Filesystem[] = [];
    for (const entry of parseMounts(text).slice(0, 1024)) {
      if (entry.mount.length > 1024) continue;
      try {
        const s = await statfs(entry.mount);
        const size = s.blocks * s.bsize;
        if (size === 0) continue;
        filesystems.push({
          ...entry,
          size_bytes: size,
          used_bytes: Math.max(0, (s.blocks - s.bfree) * s.bsize),
          available_bytes: s.bavail * s.bsize,
        });
      } catch {
        // unreachable mount (stale network share, no permission): leave it out
      }
    }
    return { filesystems };
  }

  async function packages(): Promise<AgentRequestResult<'system.packages'>> {
    const managers = [
      {
        manager: 'dpkg',
        file: 'dpkg-query',
        args: ['-W', '-f', '${Package}\\t${Version}\\t${Architecture}\\t${db:Status-Abbrev}\\n'],
        parse: parseDpkgPackages,
      },
      {
        manager: 'rpm',
        file: 'rpm',
        args: ['-qa', '--qf', '%{NAME}\\t%{VERSION}-%{RELEASE}\\t%{ARCH}\\n'],
        parse: parseRpmPackages,
      },
      { manager: 'apk', file: 'apk', args: ['info', '-v'], parse: parseApkPackages },
    ] as const;
    for (const m of managers) {
      let result;
      try {
        result = await run(m.file, m.args, { timeoutMs: 60_000, maxBufferBytes: 64 * 1024 * 1024 });
      } catch (error) {
        if (error instanceof CommandMissingError) continue;
        throw error;
      }
      if (result.code !== 0)
        throw new AgentError('failed', `${m.file} failed: ${result.stderr.trim().slice(0, 500)}`);
      const list = m.parse(result.stdout).sort(byName);
      return { manager: m.manager, packages: list.slice(0, 100_000) };
    }
    return { manager: 'none', packages: [] };
  }

  async function cron(): Promise<AgentRequestResult<'system.cron'>> {
    const jobs: CronJob[] = [];
    const readable = (file: string) => readFile(file, 'utf8').catch(() => null);
    const crontab = path.join(cronEtc, 'crontab');
    const main = await readable(crontab);
    if (main !== null) jobs.push(...parseCrontab(main, crontab, 'system'));
    const cronD = path.join(cronEtc, 'cron.d');
    for (const name of (await readdir(cronD).catch(() => [])).sort()) {
      if (name.startsWith('.') || name.endsWith('~')) continue; // cron itself ignores these
      const file = path.join(cronD, name);
      const text = await readable(file);
      if (text !== null) jobs.push(...parseCrontab(text, file, 'system'));
    }
    for (const dir of spoolDirs) {
      for (const user of (await readdir(dir).catch(() => [])).sort()) {
        const file = path.join(dir, user);
        const text = await readable(file); // a subdirectory or unreadable file reads as null
        if (text !== null) jobs.push(...parseCrontab(text, file, { user }));
      }
    }
    return { jobs: jobs.slice(0, 10_000) };
  }

  async function users(): Promise<AgentRequestResult<'system.users'>> {
    let text: string;
    try {
      text = await readFile(passwdPath, 'utf8');
    } catch {
      throw new AgentError('unsupported', `cannot read ${passwdPath}`);
    }
    return { users: parsePasswd(text).slice(0, 100_000) };
  }

  return {
    'system.network': () => Promise.resolve({ interfaces: listNetworkInterfaces().slice(0, 1024) }),
    'system.disks': disks,
    'system.packages': packages,
    'system.cron': cron,
    'system.users': users,
  };
}
