/**
 * The asset page in chromium against a real hub with its real local agent (and a fake agent for what this
 * machine lacks: systemd, a week of metrics): the overview, the processes of this machine, a file uploaded
 * and downloaded with the same bytes, services and power asking before they act, the offline 409 shown as
 * the hub words it, metrics charts, a log query, and a viewer who sees no control that changes anything.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentRequestPayload, FileEntry, LogEntry, ProcessInfo, ServiceInfo } from '@svc/protocol';
import { accessibilityProblems } from './axe.js';
import { useConsole, type ConsoleHarness } from './harness.js';
import {
  connectFakeAgent,
  createManualAsset,
  hourOfSamples,
  localAsset,
  weekOfSamples,
  type EnrolledFake,
} from './fleet.js';

const h = useConsole({ localAgent: true });

const services: ServiceInfo[] = [
  {
    name: 'nginx.service',
    description: 'A high performance web server',
    load_state: 'loaded',
    active_state: 'active',
    sub_state: 'running',
    enabled: true,
  },
  {
    name: 'postgresql.service',
    description: 'PostgreSQL RDBMS',
    load_state: 'loaded',
    active_state: 'active',
    sub_state: 'exited',
    enabled: true,
  },
  {
    name: 'backup.service',
    description: 'Nightly backup',
    load_state: 'loaded',
    active_state: 'failed',
    sub_state: 'failed',
    enabled: false,
  },
];

const logEntries: LogEntry[] = [
  { ts: '2026-11-25T08:00:01.000Z', source: 'nginx.service', priority: 6, message: 'GET /health 200' },
  { ts: '2026-11-25T08:00:02.000Z', source: 'nginx.service', priority: 3, message: 'upstream timed out' },
];

const processes: ProcessInfo[] = [
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
];

const files: FileEntry[] = [
  { name: 'nginx.conf', type: 'file', size: 2048, mode: '0644', modified_at: '2026-11-20T10:00:00.000Z' },
  { name: 'sites-enabled', type: 'directory', size: 4096, mode: '0755', modified_at: null },
];

let fake: EnrolledFake;
const week = weekOfSamples();
const serviceActions: AgentRequestPayload<'services.action'>[] = [];
const kills: AgentRequestPayload<'processes.kill'>[] = [];
const logQueries: AgentRequestPayload<'system.logs'>[] = [];
let scratch: string;

beforeAll(async () => {
  const t = h();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-web-files-'));
  fake = await connectFakeAgent(t, 'web-01', {
    'services.list': () => ({ manager: 'systemd', services }),
    'services.action': (payload) => {
      serviceActions.push(payload);
      return { name: payload.name, action: payload.action, active_state: 'active' };
    },
    'processes.list': () => ({ processes }),
    'processes.kill': (payload) => {
      kills.push(payload);
      return { pid: payload.pid, signal: payload.signal };
    },
    'files.list': (payload) => ({ path: payload.path, entries: files, truncated: false }),
    'files.read': (payload) => ({ path: payload.path, size: 5, data_base64: 'aGVsbG8=' }),
    'system.logs': (payload) => {
      logQueries.push(payload);
      return { source: 'journal', entries: logEntries, truncated: false };
    },
  });
  // The agent's backlog first (the hub takes only samples newer than the newest it has), then the last hour.
  fake.agent.metrics(week);
  fake.agent.metrics(hourOfSamples());
}, 60_000);

afterAll(() => {
  fake.agent.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function openAsset(t: ConsoleHarness, assetId: string, tab = ''): Promise<void> {
  await t.page.goto(`${t.baseUrl}/assets/${assetId}${tab ? `/${tab}` : ''}`);
  await t.page.getByRole('navigation', { name: 'Asset sections' }).waitFor();
}

describe('the asset page', () => {
  it("shows the local agent's overview and this machine's processes", async () => {
    const t = h();
    const local = await localAsset(t);
    await t.signIn('owner');

    await openAsset(t, local.id);
    await t.page.getByRole('heading', { name: local.name, level: 1 }).waitFor();
    await t.page.getByText('connected, version').waitFor();
    expect(await t.page.getByRole('button', { name: 'Reboot…' }).count()).toBe(1);
    await t.screenshot('asset-overview');

    await t.page.getByRole('link', { name: 'Processes' }).click();
    const table = t.page.getByRole('table', { name: 'Processes' });
    await table.waitFor();
    // The browser this test drives is one of this machine's processes.
    await t.page.getByRole('searchbox').fill('chromium');
    await table.getByText('chromium').first().waitFor();
    await t.page.getByRole('searchbox').fill('');
    await t.screenshot('asset-processes');

    await t.page.getByRole('link', { name: 'Network' }).click();
    await t.page.getByRole('table', { name: 'Network interfaces' }).getByText('loopback').waitFor();
    await t.page.getByRole('link', { name: 'Disks' }).click();
    await t.page.getByRole('table', { name: 'File systems' }).waitFor();
    await t.page.getByRole('link', { name: 'Users' }).click();
    await t.page
      .getByRole('table', { name: 'System users' })
      .getByText('root', { exact: true })
      .first()
      .waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('uploads a file and downloads the same bytes, then renames and deletes it', async () => {
    const t = h();
    const local = await localAsset(t);
    await t.signIn('owner');
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31 + 7) % 256));

    await t.page.goto(`${t.baseUrl}/assets/${local.id}/files?path=${encodeURIComponent(scratch)}`);
    await t.page.getByText('This folder is empty').waitFor();
    await t.page.getByLabel('Upload files').setInputFiles({
      name: 'blob.bin',
      mimeType: 'application/octet-stream',
      buffer: bytes,
    });
    await t.page
      .getByRole('status')
      .filter({ hasText: `Uploaded ${scratch}/blob.bin` })
      .waitFor();
    expect(fs.readFileSync(path.join(scratch, 'blob.bin')).equals(bytes)).toBe(true);

    const downloading = t.page.waitForEvent('download');
    await t.page.getByRole('button', { name: 'Download blob.bin' }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('blob.bin');
    const saved = await download.path();
    expect(fs.readFileSync(saved).equals(bytes)).toBe(true);

    await t.page.getByRole('button', { name: 'New folder' }).click();
    await t.page.getByLabel(/^Name \(in /).fill('reports');
    await t.page.getByRole('button', { name: 'Create folder' }).click();
    await t.page.getByRole('button', { name: 'reports', exact: true }).waitFor();
    expect(fs.statSync(path.join(scratch, 'reports')).isDirectory()).toBe(true);

    await t.page.getByRole('button', { name: 'Rename blob.bin' }).click();
    await t.page.getByLabel('To (full path)').fill(`${scratch}/reports/renamed.bin`);
    await t.page.getByRole('button', { name: 'Rename', exact: true }).click();
    await t.page.getByRole('status').filter({ hasText: 'Moved' }).waitFor();
    expect(fs.existsSync(path.join(scratch, 'reports', 'renamed.bin'))).toBe(true);
    await t.screenshot('asset-files');

    await t.page.getByRole('button', { name: 'reports', exact: true }).click();
    await t.page.getByRole('button', { name: 'Delete renamed.bin' }).click();
    const confirm = t.page.getByRole('dialog', { name: 'Delete renamed.bin?' });
    await confirm.getByText('there is no undo').waitFor();
    await confirm.getByRole('button', { name: 'Delete file' }).click();
    await t.page.getByText('This folder is empty').waitFor();
    expect(fs.existsSync(path.join(scratch, 'reports', 'renamed.bin'))).toBe(false);
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('asks before a service action: cancelled, nothing is sent; confirmed, the agent is asked', async () => {
    const t = h();
    await t.signIn('owner');
    await openAsset(t, fake.assetId, 'services');
    const table = t.page.getByRole('table', { name: 'Services' });
    await table.getByText('nginx.service').waitFor();

    await t.page.getByRole('button', { name: 'Stop nginx.service' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Stop nginx.service on web-01?' });
    await dialog.waitFor();
    await t.screenshot('asset-services-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(serviceActions).toEqual([]);

    await t.page.getByRole('button', { name: 'Restart nginx.service' }).click();
    await t.page.getByRole('button', { name: 'Restart service' }).click();
    await t.page.getByRole('status').filter({ hasText: 'nginx.service: restart done, now active' }).waitFor();
    expect(serviceActions).toEqual([{ name: 'nginx.service', action: 'restart' }]);
    await t.screenshot('asset-services');
  }, 60_000);

  it('asks before killing a process, with the signal chosen', async () => {
    const t = h();
    await t.signIn('owner');
    await openAsset(t, fake.assetId, 'processes');
    await t.page.getByRole('table', { name: 'Processes' }).getByText('nginx: worker process').waitFor();

    await t.page.getByRole('button', { name: 'Kill nginx (4242)' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Send a signal to nginx (4242)?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(kills).toEqual([]);

    await t.page.getByRole('button', { name: 'Kill nginx (4242)' }).click();
    await dialog.getByLabel('Signal').selectOption('SIGKILL');
    await dialog.getByRole('button', { name: 'Send SIGKILL' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(kills).toEqual([{ pid: 4242, signal: 'SIGKILL' }]);
  }, 60_000);

  it("shows the hub's 409 for power on an offline asset as it is, and asks before rebooting", async () => {
    const t = h();
    const manual = await createManualAsset(t, 'old-nas');
    const direct = await t.api('POST', `/api/v2/assets/${manual.id}/reboot`);
    expect(direct.status).toBe(409);
    await t.signIn('owner');
    await openAsset(t, manual.id);

    await t.page.getByRole('button', { name: 'Reboot…' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Reboot old-nas?' });
    await dialog.getByText('The machine restarts now').waitFor();
    await t.screenshot('asset-power-confirm');
    await dialog.getByRole('button', { name: 'Reboot now' }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe(`409 asset_offline: ${direct.json.message ?? ''}`);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // No MAC address to wake: the hub's own words again.
    await t.page.getByRole('button', { name: 'Wake (Wake-on-LAN)' }).click();
    await t.page.getByRole('alert').filter({ hasText: 'has no MAC address' }).waitFor();

    // The offline asset's agent tabs say the same.
    await t.page.getByRole('link', { name: 'Processes' }).click();
    await t.page.getByRole('alert').filter({ hasText: '409 asset_offline' }).waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('draws the stored metrics over a chosen range', async () => {
    const t = h();
    await t.signIn('owner');
    await openAsset(t, fake.assetId, 'metrics');

    await t.page.getByRole('img', { name: /^CPU: CPU: latest/ }).waitFor();
    expect(await t.page.locator('.chart-canvas canvas').count()).toBeGreaterThanOrEqual(5);
    await t.page.getByText('59 samples').waitFor();
    await t.screenshot('asset-metrics');

    await t.page.getByRole('button', { name: '24 hours' }).click();
    await t.page.getByRole('button', { name: '24 hours', pressed: true }).waitFor();
    await expect.poll(() => t.page.url()).toContain('range=24h');
    await t.page.getByRole('img', { name: /^Memory: Memory used: latest/ }).waitFor();
  }, 60_000);

  it('explains the charts: units and axes, exact values on hover, gaps, a week in buckets', async () => {
    const t = h();
    await t.signIn('owner');
    await openAsset(t, fake.assetId, 'metrics');
    const cpu = t.page.getByRole('figure').filter({ has: t.page.getByRole('heading', { name: 'CPU' }) });
    await cpu.getByRole('img', { name: /^CPU: CPU: latest/ }).waitFor();
    await t.page.getByText('59 samples').waitFor();

    // The axes' units and the viewer's time zone, said in text beside each chart.
    const zone = await t.page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    await cpu.getByText(`Values in %, time in ${zone}`).waitFor();
    await t.page.getByText('Values in bytes/s').waitFor();
    await t.page.getByText('Values in load (1 min)').waitFor();

    // Hovering shows the exact value of the sample under the cursor and its time in the viewer's zone (the
    // hub's zone beside it when it differs: charts.e2e.test.ts).
    const over = cpu.locator('.u-over');
    const box = await over.boundingBox();
    if (!box) throw new Error('the CPU chart has no plot area');
    await t.page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    const tip = cpu.locator('.chart-tooltip');
    await tip.waitFor();
    const text = (await tip.textContent()) ?? '';
    expect(text).toContain(`(${zone})`);
    const shown = /CPU: (\d+\.\d) %/.exec(text)?.[1];
    const exact = hourOfSamples().map((s) => s.cpu_percent.toFixed(1));
    expect(exact).toContain(shown);

    // A week comes bucketed: the count of samples and buckets, each point a bucket's mean within its band.
    await t.page.getByRole('button', { name: '7 days' }).click();
    await t.page.getByText(/^[\d,]+ samples in [\d,]+ buckets \(min, max and mean\)$/).waitFor();
    const label = (await t.page.getByText(/samples in [\d,]+ buckets/).textContent()) ?? '';
    expect(Number(/^([\d,]+) samples/.exec(label)?.[1]?.replaceAll(',', ''))).toBe(week.length + 59);
    // The day the agent was silent (and the day before the last hour) are gaps, named beside each chart.
    await cpu.getByText(/2 gaps where the agent was silent/).waitFor();
    await t.page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await expect
      .poll(async () => (await tip.textContent()) ?? '')
      .toMatch(/CPU: (mean .* \(min .*, max .*\)|no samples)/);

    expect(await accessibilityProblems(t.page, 'asset metrics, a week in buckets')).toEqual([]);
    expect(t.cspViolations).toEqual([]);
  }, 90_000);

  it('queries logs with the fields of the form', async () => {
    const t = h();
    await t.signIn('owner');
    await openAsset(t, fake.assetId, 'logs');
    await t.page.getByRole('table', { name: 'Log entries' }).getByText('upstream timed out').waitFor();

    await t.page.getByLabel('Unit').fill('nginx.service');
    await t.page.getByLabel('Containing').fill('timed out');
    await t.page.getByLabel('Priority at most').selectOption('3');
    await t.page.getByRole('button', { name: 'Query logs' }).click();
    await expect
      .poll(() => logQueries.at(-1))
      .toEqual({
        source: 'journal',
        unit: 'nginx.service',
        grep: 'timed out',
        priority: 3,
        limit: 200,
      });
    await t.screenshot('asset-logs');
  }, 60_000);

  it('shows a viewer no control that changes anything, and the hub refuses a forced one', async () => {
    const t = h();
    const local = await localAsset(t);
    await t.signIn('viewer');
    await openAsset(t, local.id);
    await t.page.getByRole('heading', { name: local.name, level: 1 }).waitFor();

    for (const name of ['Edit', 'Delete', 'Reboot…', 'Shut down…', 'Wake (Wake-on-LAN)']) {
      expect(await t.page.getByRole('button', { name }).count(), name).toBe(0);
    }
    expect(await t.page.getByRole('link', { name: 'Run a command' }).count()).toBe(0);

    // Process command lines can hold secrets: the hub's 403, as it is.
    await t.page.getByRole('link', { name: 'Processes' }).click();
    await t.page.getByRole('alert').filter({ hasText: '403' }).waitFor();

    await openAsset(t, fake.assetId, 'services');
    await t.page.getByRole('table', { name: 'Services' }).getByText('nginx.service').waitFor();
    expect(await t.page.getByRole('button', { name: /^(Start|Stop|Restart) / }).count()).toBe(0);
    await t.screenshot('asset-viewer');

    // Files: listed, nothing to change, and the contents refused with the hub's 403.
    await openAsset(t, fake.assetId, 'files');
    await t.page.getByRole('button', { name: 'sites-enabled', exact: true }).waitFor();
    for (const name of ['Upload files', 'New folder', 'Rename nginx.conf', 'Delete nginx.conf']) {
      expect(await t.page.getByRole('button', { name }).count(), name).toBe(0);
    }
    expect(await t.page.getByLabel('Upload files').count()).toBe(0);
    await t.page.getByRole('button', { name: 'Download nginx.conf' }).click();
    await t.page.getByRole('alert').filter({ hasText: '403' }).waitFor();

    const forced = await t.page.evaluate(async (id) => {
      const response = await fetch(`/api/v2/assets/${id}/reboot`, { method: 'POST' });
      return { status: response.status, body: (await response.json()) as { error: string } };
    }, fake.assetId);
    expect(forced.status).toBe(403);
    expect(serviceActions).toHaveLength(1);
  }, 60_000);
});
