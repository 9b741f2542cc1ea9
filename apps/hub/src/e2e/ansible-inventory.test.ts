/**
 * End to end (issue 32, the Ansible inventory): a hub serving HTTPS with its built-in CA on loopback, assets
 * and groups made through its API, the built CLI signed in as a user would (`svc login`), and Debian's
 * `ansible-inventory` reading the hub through an executable wrapper (`exec svc inventory "$@"`, as
 * docs/ansible.md says), in an environment of the test's own (HOME, no Ansible config, only the script
 * plugin). What is asserted is what Ansible reports: its groups, hosts, host variables and graph.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKeyCreated } from '@svc/protocol';
import { startTestHub, type TestHub } from '@svc/testkit';
import { dataOf, fetchHubTrust, HubClient, RealTimeClock, type HubTrust } from './support.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const svcLauncher = path.join(repoRoot, 'packages/cli/bin/svc.js');
const ansibleInventory = '/usr/bin/ansible-inventory';
const ansiblePlaybook = '/usr/bin/ansible-playbook';

/** The YAML blocks of docs/ansible.md, in order: the example playbook, then the constructed plugin's file. */
function docsYaml(): string[] {
  const text = fs.readFileSync(path.join(repoRoot, 'docs/ansible.md'), 'utf8');
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
}

let t: TestHub;
let work: string;
let trust: HubTrust;
let hubUrl: string;
let owner: HubClient;
/** A key with the two scopes the inventory needs, and one limited to a single asset. */
let readerKey: string;
let limitedKey: string;
const ids: Record<string, string> = {};
const groupIds: Record<string, string> = {};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A process's environment: nothing of the runner's svc or Ansible settings, HOME in the work directory. */
function baseEnv(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('SVC_') && !name.startsWith('ANSIBLE_')),
  );
  return {
    ...env,
    HOME: work,
    XDG_CONFIG_HOME: path.join(work, 'config'),
    // No ansible.cfg of the machine or the working directory, nothing written outside the work directory,
    // only the script plugin, and an inventory that cannot be read fails the command instead of a warning.
    ANSIBLE_CONFIG: path.join(work, 'ansible.cfg'),
    ANSIBLE_HOME: path.join(work, 'ansible-home'),
    ANSIBLE_LOCAL_TEMP: path.join(work, 'ansible-tmp'),
    ANSIBLE_INVENTORY_ENABLED: 'script',
    ANSIBLE_INVENTORY_UNPARSED_FAILED: 'true',
    ANSIBLE_NOCOLOR: '1',
  };
}

/** A program run to its end (bounded), from the work directory. */
function run(command: string, args: string[], env: Record<string, string> = {}, input = ''): Promise<Run> {
  const child = spawn(command, args, { cwd: work, env: { ...baseEnv(), ...env }, stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  child.stdin.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      setImmediate(() => {
        resolve({ code, stdout, stderr });
      });
    });
  });
}

const svc = (args: string[], env?: Record<string, string>, input?: string) =>
  run(process.execPath, [svcLauncher, ...args], env, input);

/** The wrapper docs/ansible.md shows, with this machine's node and CLI, and any global options before it. */
function writeWrapper(name: string, globalOptions = ''): string {
  const file = path.join(work, name);
  const options = globalOptions ? ` ${globalOptions}` : '';
  fs.writeFileSync(
    file,
    `#!/bin/sh\nexec "${process.execPath}" "${svcLauncher}"${options} inventory "$@"\n`,
    { mode: 0o755 },
  );
  return file;
}

interface AnsibleList {
  _meta: { hostvars: Record<string, Record<string, unknown>> };
  all: { children: string[] };
  [group: string]: { hosts?: string[]; children?: string[] } | AnsibleList['_meta'];
}

async function ansibleList(wrapper: string, env?: Record<string, string>): Promise<AnsibleList> {
  const answer = await run(ansibleInventory, ['-i', wrapper, '--list'], env);
  expect(answer.code, answer.stderr).toBe(0);
  // Invalid group names, duplicate names and stderr of the script would all be warnings here.
  expect(answer.stderr).toBe('');
  return JSON.parse(answer.stdout) as AnsibleList;
}

function hostsOf(list: AnsibleList, group: string): string[] {
  const entry = list[group] as { hosts?: string[] } | undefined;
  return [...(entry?.hosts ?? [])].sort();
}

beforeAll(async () => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-ansible-'));
  fs.writeFileSync(path.join(work, 'ansible.cfg'), '');
  t = await startTestHub({
    env: { SVC_TLS_MODE: 'auto' },
    listen: true,
    injectAsHttps: true,
    clock: new RealTimeClock(),
  });
  hubUrl = `https://127.0.0.1:${String(t.servers?.httpsPort)}`;
  trust = await fetchHubTrust(hubUrl);
  owner = new HubClient(hubUrl, trust.caPem, t.ownerKey);

  const assets: [string, Record<string, unknown>][] = [
    [
      'Web Server 1',
      { ip_addresses: ['10.0.0.11'], tags: ['prod', 'web'], hostname: 'web1', platform: 'linux' },
    ],
    ['web-2', { ip_addresses: ['fe80::2', '10.0.0.12'] }],
    ['db', { hostname: 'db.lan', platform: 'freebsd' }],
    ['backup', { ip_addresses: ['10.0.0.31'] }],
    ['Backup', { ip_addresses: ['10.0.0.32'] }],
    ['lonely', {}],
  ];
  for (const [name, fields] of assets) {
    ids[name] = dataOf<{ id: string }>(await owner.post('/api/v2/assets', { name, ...fields }), 201).id;
  }
  const groups: [string, string[]][] = [
    ['Web Servers', ['Web Server 1', 'web-2']],
    ['2nd-floor', ['db', 'backup', 'Backup']],
    ['all', ['db']],
    ['empty', []],
  ];
  for (const [name, members] of groups) {
    const asset_ids = members.map((m) => ids[m]);
    groupIds[name] = dataOf<{ id: string }>(await owner.post('/api/v2/groups', { name, asset_ids }), 201).id;
  }
  readerKey = dataOf<ApiKeyCreated>(
    await owner.post('/api/v2/keys', {
      name: 'ansible',
      role: 'viewer',
      scopes: ['assets:read', 'groups:read'],
    }),
    201,
  ).raw_key;
  limitedKey = dataOf<ApiKeyCreated>(
    await owner.post('/api/v2/keys', {
      name: 'ansible web only',
      role: 'viewer',
      scopes: ['assets:read', 'groups:read'],
      allowed_assets: [ids['Web Server 1']],
    }),
    201,
  ).raw_key;
}, 60_000);

afterAll(async () => {
  owner.close();
  await t.close();
  fs.rmSync(work, { recursive: true, force: true });
}, 30_000);

describe('svc inventory through ansible-inventory', () => {
  it('fails with the reason when the CLI is not signed in, as Ansible shows it', async () => {
    const answer = await run(ansibleInventory, ['-i', writeWrapper('inventory.sh'), '--list']);
    expect(answer.code).not.toBe(0);
    expect(answer.stderr).toContain('not signed in: no hub address');
  });

  it('lists the groups, the hosts and their variables from the saved login', async () => {
    const login = await svc(
      ['--hub', hubUrl, 'login', '--key-stdin', '--ca-fingerprint', trust.caFingerprint],
      {},
      readerKey,
    );
    expect(login.code, login.stderr).toBe(0);

    const list = await ansibleList(writeWrapper('inventory.sh'));
    const backupA = `backup_${ids.backup ?? ''}`;
    const backupB = `backup_${ids.Backup ?? ''}`;
    const allOfHub = `all_${groupIds.all ?? ''}`;
    expect([...list.all.children].sort()).toEqual(
      ['_2nd_floor', allOfHub, 'empty', 'ungrouped', 'web_servers'].sort(),
    );
    expect(hostsOf(list, 'web_servers')).toEqual(['web-2', 'web-server-1']);
    expect(hostsOf(list, '_2nd_floor')).toEqual([backupA, backupB, 'db'].sort());
    expect(hostsOf(list, allOfHub)).toEqual(['db']);
    expect(hostsOf(list, 'ungrouped')).toEqual(['lonely']);
    expect(Object.keys(list._meta.hostvars).sort()).toEqual(
      [backupA, backupB, 'db', 'lonely', 'web-2', 'web-server-1'].sort(),
    );
    expect(list._meta.hostvars['web-server-1']).toMatchObject({
      ansible_host: '10.0.0.11',
      svc_id: ids['Web Server 1'],
      svc_name: 'Web Server 1',
      svc_hostname: 'web1',
      svc_platform: 'linux',
      svc_status: 'unknown',
      svc_tags: ['prod', 'web'],
    });
    expect(list._meta.hostvars['web-2']).toMatchObject({ ansible_host: '10.0.0.12' });
    expect(list._meta.hostvars.db).toMatchObject({ ansible_host: 'db.lan', svc_platform: 'freebsd' });
    expect(list._meta.hostvars.lonely).not.toHaveProperty('ansible_host');
  });

  it("answers --host with a host's variables and the group's, as Ansible merges them", async () => {
    const answer = await run(ansibleInventory, [
      '-i',
      writeWrapper('inventory.sh'),
      '--host',
      'web-server-1',
    ]);
    expect(answer.code, answer.stderr).toBe(0);
    expect(JSON.parse(answer.stdout)).toMatchObject({
      ansible_host: '10.0.0.11',
      svc_id: ids['Web Server 1'],
      svc_tags: ['prod', 'web'],
      svc_group_id: groupIds['Web Servers'],
      svc_group_name: 'Web Servers',
    });
  });

  it('draws the graph of groups and hosts', async () => {
    const answer = await run(ansibleInventory, ['-i', writeWrapper('inventory.sh'), '--graph']);
    expect(answer.code, answer.stderr).toBe(0);
    const lines = answer.stdout.split('\n');
    expect(lines[0]).toBe('@all:');
    expect(lines).toContain('  |--@web_servers:');
    expect(lines).toContain('  |  |--web-server-1');
    expect(lines).toContain('  |--@ungrouped:');
    expect(lines).toContain('  |  |--lonely');
  });

  it("runs the docs' example playbook on the hub group's hosts", async () => {
    const [playbook = ''] = docsYaml();
    fs.writeFileSync(path.join(work, 'site.yml'), playbook);
    const answer = await run(ansiblePlaybook, [
      '-i',
      writeWrapper('inventory.sh'),
      'site.yml',
      '--list-hosts',
    ]);
    expect(answer.code, answer.stderr).toBe(0);
    const hosts = /hosts \(2\):\n((?: +\S+\n){2})/.exec(answer.stdout)?.[1] ?? '';
    expect(
      hosts
        .split('\n')
        .map((h) => h.trim())
        .filter(Boolean)
        .sort(),
    ).toEqual(['web-2', 'web-server-1']);
  });

  it("makes groups of tags and platforms with the docs' constructed plugin file", async () => {
    const [, constructed = ''] = docsYaml();
    const dir = path.join(work, 'inventory');
    fs.mkdirSync(dir, { recursive: true });
    // Ansible reads a directory's sources by name: the script first, then the plugin over its hosts.
    fs.copyFileSync(writeWrapper('inventory.sh'), path.join(dir, '10-svc.sh'));
    fs.chmodSync(path.join(dir, '10-svc.sh'), 0o755);
    fs.writeFileSync(path.join(dir, '20-constructed.yml'), constructed);
    const list = await ansibleList(dir, { ANSIBLE_INVENTORY_ENABLED: 'script,constructed' });
    expect(hostsOf(list, 'tag_prod')).toEqual(['web-server-1']);
    expect(hostsOf(list, 'platform_freebsd')).toEqual(['db']);
  });

  it('answers the script protocol itself: --host of an unknown name is {}, no argument is a usage error', async () => {
    const unknown = await svc(['inventory', '--host', 'nope']);
    expect(unknown.code, unknown.stderr).toBe(0);
    expect(JSON.parse(unknown.stdout)).toEqual({});
    const known = await svc(['inventory', '--host', 'db']);
    expect(JSON.parse(known.stdout)).toMatchObject({ svc_id: ids.db, ansible_host: 'db.lan' });
    const neither = await svc(['inventory']);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toContain('give either --list or --host <name>');
  });

  it('shows a key limited to some assets only those, and only the groups they are in', async () => {
    const config = path.join(work, 'limited.json');
    const login = await svc(
      ['--hub', hubUrl, '--config', config, 'login', '--key-stdin', '--ca-fingerprint', trust.caFingerprint],
      {},
      limitedKey,
    );
    expect(login.code, login.stderr).toBe(0);
    const list = await ansibleList(writeWrapper('limited.sh', `--config "${config}"`));
    expect(Object.keys(list._meta.hostvars)).toEqual(['web-server-1']);
    expect([...list.all.children].sort()).toEqual(['ungrouped', 'web_servers']);
    expect(hostsOf(list, 'web_servers')).toEqual(['web-server-1']);
  });

  it('reads SVC_HUB_URL, SVC_API_KEY and SVC_CA_FILE when there is no saved login', async () => {
    const caFile = path.join(work, 'hub-ca.pem');
    fs.writeFileSync(caFile, trust.caPem);
    const list = await ansibleList(writeWrapper('env.sh'), {
      SVC_CONFIG: path.join(work, 'none.json'),
      SVC_HUB_URL: hubUrl,
      SVC_API_KEY: limitedKey,
      SVC_CA_FILE: caFile,
    });
    expect(Object.keys(list._meta.hostvars)).toEqual(['web-server-1']);
  });
});
