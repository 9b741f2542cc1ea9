/**
 * A desktop in chromium through a real hub and its real local agent to a real VNC server (Xtigervnc, started
 * here, its screen one colour): the Desktop tab opens a session, noVNC authenticates with the password the
 * hub released, and the canvas shows the desktop's first frame. The policy off refuses a new desktop at once;
 * the recording of the session plays back on the Desktops page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startVncServer, vncMissing, type VncServer } from '@svc/testkit';
import { useConsole } from './harness.js';
import { localAsset } from './fleet.js';

const colour = [220, 60, 40] as const;
const password = 'e2e-vnc';
let vnc: VncServer | null = null;
// Filled before the hub starts (hooks run in order): the local agent inherits SVC_AGENT_* from the hub.
const env: Record<string, string> = {};

beforeAll(async () => {
  if (vncMissing()) return;
  vnc = await startVncServer({ password, colour, width: 640, height: 400 });
  env.SVC_AGENT_VNC_PORT = String(vnc.port);
});
afterAll(async () => {
  await vnc?.close();
});

const h = useConsole({ localAgent: true, env });

/** The colour at the middle of the first canvas inside the labelled screen, or null before one is drawn. */
async function centreColour(page: Page, label: string): Promise<number[] | null> {
  const script = `(() => {
    const screen = document.querySelector(${JSON.stringify(`[aria-label="${label}"]`)});
    const canvas = screen && screen.querySelector('canvas');
    const context = canvas && canvas.getContext('2d');
    if (!canvas || !context || canvas.width === 0) return null;
    return Array.from(context.getImageData(Math.floor(canvas.width / 2), Math.floor(canvas.height / 2), 1, 1).data.slice(0, 3));
  })()`;
  const value: unknown = await page.evaluate(script);
  return Array.isArray(value) ? (value as number[]) : null;
}

describe.skipIf(vncMissing() !== null)('desktop sessions in the console', () => {
  it('shows the real desktop through the hub, refuses it while the policy is off, and replays it', async () => {
    const t = h();
    const asset = await localAsset(t);
    expect((await t.api('PUT', `/api/v2/desktop/credentials/${asset.id}`, { password })).status).toBe(200);
    await t.signIn('owner');
    const { page } = t;

    await page.goto(`${t.baseUrl}/assets/${asset.id}/desktop`);
    await page.getByRole('button', { name: 'Open desktop' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Connected' }).count()).toBe(1);
    const label = `Desktop of ${asset.name}`;
    await expect.poll(() => centreColour(page, label), { timeout: 15_000 }).toEqual([...colour]);
    // The password never shows on the page.
    expect(await page.content()).not.toContain(password);
    await t.screenshot('desktop');
    await page.getByRole('button', { name: 'Close desktop' }).click();

    // The policy goes off: a new desktop is refused at once, naming the policy.
    const off = await t.api('PATCH', '/api/settings/runtime', { 'policy.interactive_enabled': false });
    expect(off.status).toBe(200);
    await page.getByRole('button', { name: 'Open desktop' }).click();
    await expect
      .poll(() => page.getByText('policy.interactive_enabled').count(), { timeout: 10_000 })
      .toBeGreaterThan(0);
    expect(
      (await t.api('PATCH', '/api/settings/runtime', { 'policy.interactive_enabled': true })).status,
    ).toBe(200);

    // The recording of that session, played back.
    await page.goto(`${t.baseUrl}/desktop`);
    await page.getByRole('link', { name: 'Play' }).first().click();
    await expect.poll(() => centreColour(page, 'Recorded desktop'), { timeout: 15_000 }).toEqual([...colour]);
    await t.screenshot('desktop-recording');
  });
});
