/**
 * The asset page's tabs (files, processes, services, containers, logs, disks, network, packages, users,
 * cron, terminal) in other languages (decision 0090): each tab and its main dialogs in the pseudo-locale,
 * where every visible text must come from a catalogue (the agent's data marked as data), then in German,
 * with no missing key and a table or heading found by its German name.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineContainer } from '@svc/protocol';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';
import { useConsole } from './harness.js';
import { de, expectLanguage, unmarkedTexts, waitSettled } from './languages-check.js';

const h = useConsole();

const container = (id: string, name: string, over: Partial<EngineContainer> = {}): EngineContainer => ({
  id: id.repeat(64),
  name,
  image: 'nginx:1.27-alpine',
  state: 'running',
  status: 'Up 3 hours',
  health: null,
  created_at: '2026-11-24T09:15:00.000Z',
  ports: [{ private_port: 80, public_port: 8080, ip: '0.0.0.0', type: 'tcp' }],
  compose_project: 'shop',
  compose_service: 'web',
  ...over,
});

let fake: EnrolledFake;

beforeAll(async () => {
  fake = await connectFakeAgent(
    h(),
    'i18n-tabs-01',
    {
      'processes.list': () => ({
        processes: [
          {
            pid: 4242,
            ppid: 1,
            user: 'www-data',
            name: 'nginx',
            command: 'nginx: worker process',
            state: 'sleeping',
            cpu_percent: 3.5,
            memory_bytes: 48 * 1024 * 1024,
            started_at: '2026-11-25T07:00:00.000Z',
          },
        ],
      }),
      'services.list': () => ({
        manager: 'systemd',
        services: [
          {
            name: 'nginx.service',
            description: 'A high performance web server',
            load_state: 'loaded',
            active_state: 'active',
            sub_state: 'running',
            enabled: true,
          },
        ],
      }),
      'files.list': (payload) => ({
        path: payload.path,
        entries: [
          {
            name: 'nginx.conf',
            type: 'file',
            size: 2048,
            mode: '0644',
            modified_at: '2026-11-20T10:00:00.000Z',
          },
          { name: 'sites-enabled', type: 'directory', size: 4096, mode: '0755', modified_at: null },
        ],
        truncated: true,
      }),
      'system.logs': () => ({
        source: 'journal',
        entries: [
          {
            ts: '2026-11-25T08:00:02.000Z',
            source: 'nginx.service',
            priority: 3,
            message: 'upstream timed out',
          },
        ],
        truncated: true,
      }),
      'system.disks': () => ({
        filesystems: [
          {
            mount: '/',
            device: '/dev/sda1',
            fstype: 'ext4',
            size_bytes: 64 * 2 ** 30,
            used_bytes: 20 * 2 ** 30,
            available_bytes: 44 * 2 ** 30,
          },
        ],
      }),
      'system.network': () => ({
        interfaces: [
          {
            name: 'lo',
            mac: null,
            internal: true,
            addresses: [{ address: '127.0.0.1', family: 'IPv4', cidr: '127.0.0.1/8' }],
          },
          {
            name: 'eth0',
            mac: '02:00:00:00:00:10',
            internal: false,
            addresses: [{ address: '192.0.2.10', family: 'IPv4', cidr: '192.0.2.10/24' }],
          },
        ],
      }),
      'system.packages': () => ({
        manager: 'dpkg',
        packages: [{ name: 'nginx', version: '1.26.0-1', arch: 'amd64' }],
      }),
      'system.users': () => ({
        users: [{ name: 'root', uid: 0, gid: 0, home: '/root', shell: '/bin/bash', gecos: 'root' }],
      }),
      'system.cron': () => ({
        jobs: [
          {
            source: '/etc/crontab',
            user: 'root',
            schedule: '17 * * * *',
            command: 'run-parts /etc/cron.hourly',
          },
        ],
      }),
      'containers.list': () => ({
        containers: [
          container('a', 'shop-web-1', { health: 'healthy' }),
          container('b', 'grafana', {
            state: 'exited',
            compose_project: null,
            compose_service: null,
            ports: [],
          }),
        ],
        truncated: false,
      }),
      'containers.logs': (payload) => ({
        id: payload.id,
        tty: false,
        entries: [{ stream: 'stderr', text: 'database is locked, retrying' }],
        truncated: true,
      }),
      'containers.images': () => ({
        images: [
          {
            id: `sha256:${'1'.repeat(64)}`,
            tags: [],
            size_bytes: 48_000_000,
            created_at: null,
            containers: 1,
          },
        ],
        truncated: false,
      }),
      'containers.volumes': () => ({
        volumes: [
          {
            name: 'shop_pgdata',
            driver: 'local',
            mountpoint: '/var/lib/docker/volumes/shop_pgdata/_data',
            created_at: '2026-11-01T10:00:00.000Z',
            compose_project: 'shop',
          },
        ],
        truncated: false,
      }),
    },
    { capabilities: ['exec', 'metrics', 'containers'] },
  );
}, 60_000);

afterAll(() => {
  fake.agent.close();
});

/** Opens a tab and waits for the agent's answer: a table's first row, or `ready`. */
async function openTab(
  page: Page,
  baseUrl: string,
  tab: string,
  ready = '.data-table tbody tr',
): Promise<void> {
  await page.goto(`${baseUrl}/assets/${fake.assetId}/${tab}`);
  await page.locator(ready).first().waitFor();
  await waitSettled(page);
}

describe('the asset tabs in other languages', () => {
  it('marks every visible text of the tabs and their dialogs in the pseudo-locale', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    await page.goto(`${t.baseUrl}/assets/${fake.assetId}/terminal?lang=pseudo`);
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en-XA');
    await page.locator('main button').last().waitFor();
    const unmarked: Record<string, string[]> = { terminal: await page.evaluate<string[]>(unmarkedTexts) };
    const look = async (name: string) => {
      unmarked[name] = await page.evaluate<string[]>(unmarkedTexts);
    };
    const inDialog = async (name: string, open: () => Promise<void>) => {
      await open();
      await page.getByRole('dialog').waitFor();
      await look(name);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    };

    await openTab(page, t.baseUrl, 'processes');
    await look('processes');
    await inDialog('kill', () => page.locator('.cell-actions button.danger').first().click());

    await openTab(page, t.baseUrl, 'services');
    await look('services');
    await inDialog('stopService', () => page.locator('.row-buttons button.danger').first().click());

    await openTab(page, t.baseUrl, 'files');
    await look('files');
    await inDialog('newFolder', () => page.locator('.files-toolbar > button').click());
    const fileButtons = page.locator('tr', { hasText: 'nginx.conf' }).locator('.row-buttons button');
    await inDialog('rename', () => fileButtons.nth(1).click());
    await inDialog('deleteFile', () => fileButtons.nth(3).click());

    await openTab(page, t.baseUrl, 'containers');
    await look('containers');
    await inDialog('stopContainer', () => page.locator('.row-buttons button.danger').first().click());
    await page.locator('tr', { hasText: 'grafana' }).locator('.row-buttons button').first().click();
    await page.locator('pre.container-log').waitFor();
    await waitSettled(page);
    await look('containerLogs');
    const views = page.locator('.segmented button');
    await views.nth(1).click();
    await page.locator('.stack-card').first().waitFor();
    await waitSettled(page);
    await look('stacks');
    for (const [index, name] of [
      [2, 'images'],
      [3, 'volumes'],
    ] as const) {
      await views.nth(index).click();
      await page.locator('.data-table tbody tr').first().waitFor();
      await waitSettled(page);
      await look(name);
    }

    for (const tab of ['logs', 'disks', 'network', 'packages', 'users', 'cron']) {
      await openTab(page, t.baseUrl, tab);
      await look(tab);
    }
    // The metrics tab: its ranges and, with no sample stored, its empty state.
    await openTab(page, t.baseUrl, 'metrics', '.metrics .segmented button');
    await page.locator('.metrics .empty, .metrics .charts').first().waitFor();
    await look('metrics');

    expect(unmarked).toEqual({
      terminal: [],
      processes: [],
      kill: [],
      services: [],
      stopService: [],
      files: [],
      newFolder: [],
      rename: [],
      deleteFile: [],
      containers: [],
      stopContainer: [],
      containerLogs: [],
      stacks: [],
      images: [],
      volumes: [],
      logs: [],
      disks: [],
      network: [],
      packages: [],
      users: [],
      cron: [],
      metrics: [],
    });
  }, 120_000);

  it('shows the tabs in German with no missing message', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    const tables: [string, string][] = [
      ['processes', de['assetTabs.processes']],
      ['services', de['assetTabs.services']],
      ['logs', de['assetTabs.logEntries']],
      ['disks', de['assetTabs.fileSystems']],
      ['network', de['assetTabs.networkInterfaces']],
      ['packages', de['assetTabs.packages']],
      ['users', de['assetTabs.systemUsers']],
      ['cron', de['assetTabs.cronJobs']],
      ['files', de['assetTabs.filesIn'].replace('{path}', '/')],
      ['containers', de['assetTabs.containers']],
    ];
    await page.goto(`${t.baseUrl}/assets/${fake.assetId}/terminal?lang=de`);
    await page.getByRole('button', { name: de['assetTabs.openTerminal'] }).waitFor();
    await expectLanguage(page, 'de');
    await page.goto(`${t.baseUrl}/assets/${fake.assetId}/metrics`);
    await page.getByRole('group', { name: de['metrics.range'] }).waitFor();
    await page.getByRole('button', { name: '7 Tage' }).waitFor();
    await expectLanguage(page, 'de');
    for (const [tab, name] of tables) {
      await page.goto(`${t.baseUrl}/assets/${fake.assetId}/${tab}`);
      await page.getByRole('table', { name }).locator('tbody tr').first().waitFor();
      await expectLanguage(page, 'de');
    }
    // The containers tab is last: a container's logs, under a heading in German.
    await page.getByRole('button', { name: de['assetTabs.logsOf'].replace('{name}', 'grafana') }).click();
    await page.getByRole('heading', { name: de['assetTabs.logsOf'].replace('{name}', 'grafana') }).waitFor();
    await page.getByText(de['assetTabs.twoStreams']).waitFor();
    await expectLanguage(page, 'de');
  }, 90_000);
});
