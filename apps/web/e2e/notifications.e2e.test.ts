/**
 * Notification channels in chromium against a real hub: an ntfy channel added in the console to a local
 * receiver (loopback and plain-http opt-ins set), a test notification sent from the page that the receiver
 * gets, the channel edited (lowest severity, quiet hours, digest window, enabled), and deleted after a
 * confirmation.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useConsole } from './harness.js';

const h = useConsole({
  env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_OUTBOUND_ALLOW_INSECURE: 'true' },
});

const received: { headers: IncomingHttpHeaders; body: string }[] = [];
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
});

describe('the Notifications page', () => {
  it('adds an ntfy channel and sends a test notification the receiver gets', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/notifications`);
    await t.page.getByText('No channels yet').waitFor();

    await t.page.getByRole('button', { name: 'New channel' }).click();
    await t.page.getByLabel('Name').fill('phone');
    await t.page.getByLabel('Kind').selectOption('ntfy');
    await t.page.getByLabel('URL').fill(`http://127.0.0.1:${String(port)}/alerts`);
    await t.page.getByLabel('Digest window (seconds)').fill('60');
    await t.page.getByRole('button', { name: 'Create channel' }).click();

    const row = t.page
      .getByRole('table', { name: 'Notification channels' })
      .getByRole('row', { name: /phone/ });
    await row.getByText('60 s').waitFor();
    await row.getByRole('button', { name: 'Send a test notification to phone' }).click();
    await row.getByRole('status').getByText('Sent').waitFor();
    expect(received).toHaveLength(1);
    expect(received[0]?.headers.title).toBe('svc hub: test notification');
    expect(received[0]?.body).toContain('A test notification from svc hub');
    await t.screenshot('notifications');

    // Edit: the routing set from the page, kept by the hub.
    await row.getByRole('button', { name: 'Edit phone' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Edit phone' });
    expect(await dialog.getByLabel('URL').inputValue()).toBe(`http://127.0.0.1:${String(port)}/alerts`);
    await dialog.getByLabel('Name').fill('pager');
    await dialog.getByLabel('Lowest severity').selectOption('critical');
    await dialog.getByLabel('Quiet from').fill('22:00');
    await dialog.getByLabel('Quiet until').fill('07:00');
    await dialog.getByLabel('Time zone (UTC when empty)').fill('Europe/Berlin');
    await dialog.getByLabel('Digest window (seconds)').fill('300');
    await dialog.getByLabel('Enabled').uncheck();
    await t.screenshot('notification-edit');
    await dialog.getByRole('button', { name: 'Save channel' }).click();
    const edited = t.page
      .getByRole('table', { name: 'Notification channels' })
      .getByRole('row', { name: /pager/ });
    await edited.getByText('22:00–07:00 Europe/Berlin').waitFor();
    await edited.getByText('300 s').waitFor();
    const listed = await t.api('GET', '/api/settings/notifications/channels');
    expect(listed.json.data).toMatchObject([
      {
        name: 'pager',
        enabled: false,
        min_severity: 'critical',
        quiet_hours: { start: '22:00', end: '07:00', time_zone: 'Europe/Berlin' },
        digest_window_s: 300,
      },
    ]);
    // Quiet hours cleared from the page.
    await edited.getByRole('button', { name: 'Edit pager' }).click();
    const again = t.page.getByRole('dialog', { name: 'Edit pager' });
    await again.getByLabel('Quiet from').fill('');
    await again.getByLabel('Quiet until').fill('');
    await again.getByRole('button', { name: 'Save channel' }).click();
    // The row had a "—" cell before the save too: what shows the save is the quiet hours gone from the row.
    await again.waitFor({ state: 'hidden' });
    await edited.getByText('22:00–07:00 Europe/Berlin').waitFor({ state: 'detached' });
    await edited.getByRole('cell', { name: '—' }).first().waitFor();
    const cleared = await t.api('GET', '/api/settings/notifications/channels');
    expect((cleared.json.data as { quiet_hours: unknown }[])[0]?.quiet_hours).toBeNull();

    await edited.getByRole('button', { name: 'Delete pager' }).click();
    await t.page.getByRole('button', { name: 'Delete channel' }).click();
    await t.page.getByText('No channels yet').waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 60_000);
});
