/**
 * A terminal from the phone (issue 17 items 1, 6–8), in chromium with a phone's viewport against a hub with
 * its real local agent, on http://localhost (a secure context: WebAuthn and the service worker run):
 * - without user verification (a virtual platform authenticator that does not verify its user) the
 *   session does not open, and the hub holds no live session;
 * - with it, the terminal opens with the proof the hub spends, a typed command's output shows, and the
 *   session activity notification is up while it runs;
 * - a dropped attach WebSocket (closed from the page through a test-only wrapper of WebSocket) re-attaches to
 *   the same session (`autoReconnect`), the earlier screen replayed;
 * - ending it closes the session at the hub and clears the notification.
 */
import { describe, expect, it } from 'vitest';
import type { Session } from '@svc/protocol';
import { localAsset } from './fleet.js';
import { accessibilityProblems } from './axe.js';
import { useConsole } from './harness.js';
import { addDeviceAuthenticator } from './device-authenticator.js';

const h = useConsole({
  localAgent: true,
  plainHttp: true,
  notifications: true,
  viewport: { width: 390, height: 844 },
});

/** Test hook: every WebSocket the page opens, so the test can drop the terminal's. */
const recordSockets = `(() => {
  const Native = window.WebSocket;
  const sockets = [];
  window.__svcSockets = sockets;
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); sockets.push(this); }
  };
})();`;

async function liveSessions(): Promise<Session[]> {
  const res = await h().api('GET', '/api/v2/sessions?state=live');
  return res.json.data as Session[];
}

describe('a terminal on the mobile companion', () => {
  it(
    'opens only for a verified device owner, runs a command, re-attaches after a drop, ends',
    { timeout: 180_000 },
    async () => {
      const t = h();
      const asset = await localAsset(t);
      await t.context.grantPermissions(['notifications'], { origin: t.baseUrl });
      await t.context.addInitScript({ content: recordSockets });
      const { page } = t;
      await page.goto(`${t.baseUrl}/m/`);
      await page.getByLabel('Username').fill('owner');
      await page.getByLabel('Password').fill(t.ownerPassword ?? '');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
      await page.evaluate('navigator.serviceWorker.ready.then(() => true)');

      const unverified = await addDeviceAuthenticator(page, { userVerified: false });
      const { cdp } = unverified;
      await page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(asset.id)}`);
      await page.getByRole('button', { name: 'Open terminal' }).click();
      await page.locator('.m-gate [role="alert"]').waitFor({ timeout: 30_000 });
      await expect.poll(() => page.getByLabel('Terminal status').count()).toBe(0);
      expect(await liveSessions()).toEqual([]);
      await cdp.send('WebAuthn.removeVirtualAuthenticator', { authenticatorId: unverified.authenticatorId });

      await addDeviceAuthenticator(page, { cdp });
      await page.getByRole('button', { name: 'Open terminal' }).click();
      const status = page.getByLabel('Terminal status');
      await expect.poll(() => status.textContent(), { timeout: 30_000 }).toBe('Live');
      const [session] = await liveSessions();
      expect(session?.asset_id).toBe(asset.id);
      const rows = page.locator('.m-terminal .xterm-rows');
      await page.locator('.m-terminal').click();
      await page.keyboard.type('echo svc-$((40+2))');
      await page.keyboard.press('Enter');
      await expect.poll(() => rows.textContent(), { timeout: 15_000 }).toContain('svc-42');
      // xterm's theme applies although the CSP refuses <style> elements: light text on the black screen.
      const colour = await page.evaluate<string>(
        `getComputedStyle(document.querySelector('.m-terminal .xterm-rows')).color`,
      );
      expect(colour).toBe('rgb(255, 255, 255)');
      const notifications = () =>
        page.evaluate<{ title: string; body: string }[]>(
          'navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((l) => l.map((n) => ({ title: n.title, body: n.body })))',
        );
      await expect
        .poll(notifications, { timeout: 15_000 })
        .toContainEqual({ title: 'svc hub: session running', body: 'A remote session is open' });
      await t.screenshot('mobile-terminal');
      expect.soft(await accessibilityProblems(page, 'the phone terminal')).toEqual([]);

      // A transient drop: the page's attach socket closes; the terminal re-attaches to the same session.
      const dropped = await page.evaluate<number>(`(() => {
        const open = window.__svcSockets.filter((s) => s.url.includes('/attach') && s.readyState === 1);
        for (const s of open) s.close();
        return open.length;
      })()`);
      expect(dropped).toBe(1);
      // "Live" may still be the dropped attach's status for a moment: wait for the new attach to be open.
      await expect
        .poll(
          () =>
            page.evaluate<boolean>(`(() => {
              const attaches = window.__svcSockets.filter((s) => s.url.includes('/attach'));
              return attaches.length === 2 && attaches[1].readyState === 1;
            })()`),
          { timeout: 30_000 },
        )
        .toBe(true);
      await expect.poll(() => status.textContent(), { timeout: 30_000 }).toBe('Live');
      await expect.poll(() => rows.textContent(), { timeout: 15_000 }).toContain('svc-42');
      await page.locator('.m-terminal').click();
      await page.keyboard.type('echo again-$((1+1))');
      await page.keyboard.press('Enter');
      await expect.poll(() => rows.textContent(), { timeout: 15_000 }).toContain('again-2');
      expect((await liveSessions()).map((s) => s.id)).toEqual([session?.id]);
      const attaches = await page.evaluate<number>(
        `window.__svcSockets.filter((s) => s.url.includes('/attach')).length`,
      );
      expect(attaches).toBe(2);

      await page.getByRole('button', { name: 'End session' }).click();
      await expect.poll(liveSessions, { timeout: 15_000 }).toEqual([]);
      await expect
        .poll(async () => (await notifications()).map((n) => n.title), { timeout: 15_000 })
        .not.toContain('svc hub: session running');
      expect(t.cspViolations).toEqual([]);
    },
  );
});
