/**
 * A desktop from the phone (issue 17 items 1, 6, 8), in chromium with a phone's viewport against a hub with
 * its real local agent and a real VNC server (Xtigervnc, one colour), on http://localhost (a secure context:
 * WebAuthn runs):
 * - "Open desktop" asks the device owner first (a CDP virtual platform authenticator with user verification
 *   registers, then signs), the hub spends the proof, and noVNC shows the desktop's first frame, scaled to the
 *   phone's width;
 * - with `autoReconnect` on, a dropped stream WebSocket (closed from the page through a test-only wrapper of
 *   WebSocket) attaches again and the desktop shows again; the diagnostics banner names the session's state;
 * - with it off, the same drop leaves the desktop disconnected, with no new attach.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { startVncServer, vncMissing, type VncServer } from '@svc/testkit';
import { localAsset } from './fleet.js';
import { useConsole } from './harness.js';
import { addDeviceAuthenticator } from './device-authenticator.js';

const colour = [40, 160, 90] as const;
const password = 'phone-vnc';
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

const h = useConsole({ localAgent: true, plainHttp: true, viewport: { width: 390, height: 844 }, env });

/**
 * Test hook: every WebSocket the page opens, so the test can drop the desktop's. A Proxy, not a subclass:
 * noVNC checks a socket's own prototype for the WebSocket members.
 */
const recordSockets = `(() => {
  const sockets = [];
  window.__svcSockets = sockets;
  window.WebSocket = new Proxy(window.WebSocket, {
    construct(target, args) {
      const socket = Reflect.construct(target, args);
      sockets.push(socket);
      return socket;
    },
  });
})();`;

/** The colour at the middle of the desktop's canvas, or null before one is drawn. */
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

const streams = (page: Page) =>
  page.evaluate<number>(`window.__svcSockets.filter((s) => s.url.includes('/desktop/sessions/')).length`);

/** Closes the page's open desktop stream sockets, as a network drop would; answers how many. */
const dropStreams = (page: Page) =>
  page.evaluate<number>(`(() => {
    const open = window.__svcSockets.filter((s) => s.url.includes('/desktop/sessions/') && s.readyState === 1);
    for (const s of open) s.close();
    return open.length;
  })()`);

describe.skipIf(vncMissing() !== null)('a desktop on the mobile companion', () => {
  it(
    'opens for a verified device owner, fits the phone, re-attaches after a drop only with autoReconnect',
    { timeout: 180_000 },
    async () => {
      const t = h();
      const asset = await localAsset(t);
      expect((await t.api('PUT', `/api/v2/desktop/credentials/${asset.id}`, { password })).status).toBe(200);
      await t.context.addInitScript({ content: recordSockets });
      const { page } = t;
      await page.goto(`${t.baseUrl}/m/`);
      await page.getByLabel('Username').fill('owner');
      await page.getByLabel('Password').fill(t.ownerPassword ?? '');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByLabel('Connection diagnostics banner').check();

      const { cdp, authenticatorId } = await addDeviceAuthenticator(page);
      await page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(asset.id)}`);
      await page.getByRole('button', { name: 'Open desktop' }).click();
      const label = `Desktop of ${asset.name}`;
      await expect
        .poll(() => centreColour(page, label), { timeout: 30_000 })
        .toEqual([...colour])
        .catch(async (error: unknown) => {
          throw new Error(`${String(error)}\npage: ${await page.locator('main').innerText()}`);
        });
      // The gate was asked: this device's authenticator registered and signed.
      const held = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as {
        credentials: { signCount: number }[];
      };
      expect(held.credentials).toHaveLength(1);
      expect(held.credentials[0]?.signCount).toBeGreaterThan(0);
      // Fitted to the phone: the canvas is no wider than the viewport.
      const width = await page.evaluate<number>(
        `document.querySelector('[aria-label="${label}"] canvas').getBoundingClientRect().width`,
      );
      expect(width).toBeLessThanOrEqual(390);
      // Scrolled into view when it opened: the whole screen shows between the top bar and the tab bar.
      const place = await page.evaluate<{ top: number; bottom: number; barBottom: number; tabsTop: number }>(
        `(() => {
          const canvas = document.querySelector('[aria-label="${label}"] canvas').getBoundingClientRect();
          return {
            top: canvas.top,
            bottom: canvas.bottom,
            barBottom: document.querySelector('header.m-top').getBoundingClientRect().bottom,
            tabsTop: document.querySelector('nav[aria-label="Mobile"]').getBoundingClientRect().top,
          };
        })()`,
      );
      expect(place.top).toBeGreaterThanOrEqual(place.barBottom);
      expect(place.bottom).toBeLessThanOrEqual(place.tabsTop);
      expect(await page.content()).not.toContain(password);
      const banner = page.getByRole('complementary', { name: 'Connection diagnostics' });
      await expect.poll(() => banner.textContent()).toContain('session desktop Connected');
      await t.screenshot('mobile-desktop');

      // A transient drop: the desktop attaches again to the same session and shows again.
      expect(await dropStreams(page)).toBe(1);
      await expect
        .poll(() => banner.textContent(), { timeout: 15_000 })
        .toMatch(/session desktop (Reconnecting|Connected)/);
      await expect.poll(() => streams(page), { timeout: 15_000 }).toBe(2);
      await expect.poll(() => centreColour(page, label), { timeout: 15_000 }).toEqual([...colour]);
      await expect
        .poll(() => banner.textContent(), { timeout: 15_000 })
        .toContain('session desktop Connected');
      const live = await t.api('GET', '/api/v2/desktop/sessions');
      expect((live.json.data as unknown[]).length, live.text).toBe(1);
      await page.getByRole('button', { name: 'Close desktop' }).click();
      await page.getByRole('button', { name: 'Open desktop' }).waitFor();

      // autoReconnect off: the same drop ends the desktop, and nothing attaches again.
      await page.getByRole('link', { name: 'Settings' }).click();
      await page.getByLabel('Reconnect after a dropped connection').uncheck();
      await page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(asset.id)}`);
      await page.getByRole('button', { name: 'Open desktop' }).click();
      await expect.poll(() => centreColour(page, label), { timeout: 30_000 }).toEqual([...colour]);
      const before = await streams(page);
      expect(await dropStreams(page)).toBe(1);
      await expect
        .poll(() => banner.textContent(), { timeout: 15_000 })
        .toContain('session desktop Disconnected');
      // Longer than the first backoff step: still no new attach.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(await streams(page)).toBe(before);
      expect(await page.getByRole('status').filter({ hasText: 'Disconnected' }).count()).toBe(1);
      expect(t.cspViolations).toEqual([]);
    },
  );
});
