/**
 * Webhooks in chromium against a real hub: a webhook created in the console to a local receiver (loopback and
 * plain-http opt-ins set), its secret shown once, a test event sent from the console that the receiver gets
 * and verifies with the SDK's reference verifier, the counters shown, and the webhook deleted after a
 * confirmation.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '@svc/sdk/webhooks';
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
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
});

describe('the Webhooks page', () => {
  it('creates a webhook, shows its secret once, and sends a signed test event the receiver verifies', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/webhooks`);
    await t.page.getByText('No webhooks yet').waitFor();

    await t.page.getByRole('button', { name: 'New webhook' }).click();
    await t.page.getByLabel('Name').fill('receiver');
    await t.page.getByLabel('URL').fill(`http://127.0.0.1:${String(port)}/hook`);
    await t.page.getByRole('group', { name: 'Events' }).getByLabel('asset.created').check();
    await t.page.getByRole('button', { name: 'Create webhook' }).click();

    const secret = (await t.page.getByLabel('Webhook secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    await t.screenshot('webhook-secret');
    await t.page.getByRole('button', { name: 'Done' }).click();

    const row = t.page.getByRole('table', { name: 'Webhooks' }).getByRole('row', { name: /receiver/ });
    await row.getByText('asset.created').waitFor();
    await row.getByRole('button', { name: 'Send a test event to receiver' }).click();
    await row.getByRole('status').getByText('Delivered (200)').waitFor();
    expect(received).toHaveLength(1);
    const [delivery] = received;
    const header = (name: string) => String(delivery?.headers[name]);
    expect(
      verifyWebhookSignature({
        secret,
        timestamp: header('x-svc-timestamp'),
        body: delivery?.body ?? '',
        signature: header('x-svc-signature-256'),
      }),
    ).toEqual({ valid: true });
    expect(header('x-svc-event')).toBe('webhook.test');
    await row.locator('td.cell-number').first().getByText('1').waitFor();
    await t.screenshot('webhooks');

    // No read shows the secret again.
    const listed = await t.api('GET', '/api/v2/webhooks');
    expect(listed.text).not.toContain(secret);

    await row.getByRole('button', { name: 'Delete receiver' }).click();
    await t.page.getByRole('button', { name: 'Delete webhook' }).click();
    await t.page.getByText('No webhooks yet').waitFor();
    expect(t.cspViolations).toEqual([]);
  }, 60_000);

  it('shows the hub refusing a URL under its field', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/webhooks`);
    await t.page.getByRole('button', { name: 'New webhook' }).click();
    await t.page.getByLabel('Name').fill('bad');
    await t.page.getByLabel('URL').fill('ftp://example.net/');
    await t.page.getByRole('button', { name: 'Create webhook' }).click();
    await t.page.locator('.field-error', { hasText: /scheme|outbound/ }).waitFor();
  }, 60_000);
});
