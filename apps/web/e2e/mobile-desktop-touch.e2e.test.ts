/**
 * Touch and the on-screen keyboard on the phone's desktop (issue 34 point 6), in chromium as a phone (touch
 * events, a phone's viewport) against a hub with its real local agent and a real VNC server (Xtigervnc). What
 * the desktop received is read on the X server's side: a small X client on the VNC server's display records
 * the button and key events its root window got (`watchXInput`), so each assertion is about the desktop, not
 * about what the page meant to send.
 * - a tap is a left click at the point, a long press (a ring shows at the finger) and a two-finger tap are right
 *   clicks, a two-finger drag turns the wheel, a one-finger drag is a left-button drag, and the page does not
 *   scroll under them;
 * - "Keyboard" focuses the typing input; typed characters, Enter and Backspace, the row's Esc and a held Ctrl
 *   reach the desktop as key events, and Ctrl+Alt+Del as its three keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CDPSession, Page } from 'playwright-core';
import { startVncServer, vncMissing, watchXInput, type VncServer, type XInputWatch } from '@svc/testkit';
import { accessibilityProblems } from './axe.js';
import { localAsset } from './fleet.js';
import { useConsole } from './harness.js';
import { addDeviceAuthenticator } from './device-authenticator.js';

const colour = [90, 40, 160] as const;
const password = 'touchvnc';
const remote = { width: 640, height: 400 };
let vnc: VncServer | null = null;
let watch: XInputWatch | null = null;
const env: Record<string, string> = {};

beforeAll(async () => {
  if (vncMissing()) return;
  vnc = await startVncServer({ password, colour, ...remote });
  watch = await watchXInput(vnc.display);
  env.SVC_AGENT_VNC_PORT = String(vnc.port);
});
afterAll(async () => {
  watch?.close();
  await vnc?.close();
});

const h = useConsole({
  localAgent: true,
  plainHttp: true,
  viewport: { width: 390, height: 844 },
  touch: true,
  env,
});

type Point = { x: number; y: number };

/** The canvas's box in the viewport, to turn desktop pixels into touch points. */
async function canvasBox(page: Page, label: string) {
  return page.evaluate<{ left: number; top: number; width: number; height: number }>(`(() => {
    const r = document.querySelector('[aria-label="${label}"] canvas').getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width, height: r.height };
  })()`);
}

/** Touch points through the debugger protocol: several fingers at once, as a phone sends them. */
function fingers(cdp: CDPSession) {
  const send = (type: 'touchStart' | 'touchMove' | 'touchEnd', points: Point[]) =>
    cdp.send('Input.dispatchTouchEvent', {
      type,
      touchPoints: points.map((p, id) => ({ x: p.x, y: p.y, id })),
    });
  return {
    down: (points: Point[]) => send('touchStart', points),
    move: (points: Point[]) => send('touchMove', points),
    up: () => send('touchEnd', []),
  };
}

describe.skipIf(vncMissing() !== null)('touch and the keyboard on the phone’s desktop', () => {
  it(
    'turns taps, a long press and drags into clicks, wheel and drags, and types through the keyboard',
    { timeout: 180_000 },
    async () => {
      const t = h();
      const x = watch;
      if (!x) throw new Error('no X watch');
      const asset = await localAsset(t);
      expect((await t.api('PUT', `/api/v2/desktop/credentials/${asset.id}`, { password })).status).toBe(200);
      const { page } = t;
      await page.goto(`${t.baseUrl}/m/`);
      await page.getByLabel('Username').fill('owner');
      await page.getByLabel('Password').fill(t.ownerPassword ?? '');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
      const { cdp } = await addDeviceAuthenticator(page);
      await page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(asset.id)}`);
      await page.getByRole('button', { name: 'Open desktop' }).click();
      const label = `Desktop of ${asset.name}`;
      await page.locator(`[aria-label="${label}"] canvas`).waitFor();
      await expect
        .poll(() => page.getByRole('button', { name: 'Keyboard' }).isEnabled(), { timeout: 30_000 })
        .toBe(true);
      const box = await canvasBox(page, label);
      const scale = remote.width / box.width;
      const at = (rx: number, ry: number): Point => ({ x: box.left + rx / scale, y: box.top + ry / scale });
      // Where the desktop got it, within a phone pixel's worth of rounding.
      const near = (event: { x: number; y: number } | undefined, rx: number, ry: number) => {
        expect(event).toBeDefined();
        expect(Math.abs((event?.x ?? -99) - rx)).toBeLessThanOrEqual(Math.ceil(scale));
        expect(Math.abs((event?.y ?? -99) - ry)).toBeLessThanOrEqual(Math.ceil(scale));
      };
      const finger = fingers(cdp);
      const scrollBefore = await page.evaluate<number>('window.scrollY');
      const since = (n: number) => x.buttons().slice(n);

      // A tap: button 1 pressed and released at the point.
      let seen = x.buttons().length;
      await finger.down([at(320, 200)]);
      await finger.up();
      await expect
        .poll(() => since(seen).map((e) => `${e.kind} ${e.button}`))
        .toEqual(['press 1', 'release 1']);
      near(since(seen)[0], 320, 200);

      // A long press: after half a second, still held, the right button goes down and a ring shows there.
      seen = x.buttons().length;
      await finger.down([at(160, 100)]);
      await expect
        .poll(() => since(seen).map((e) => `${e.kind} ${e.button}`), { timeout: 5_000 })
        .toEqual(['press 3']);
      near(since(seen)[0], 160, 100);
      const cue = page.getByTestId('long-press-cue');
      expect(await cue.isVisible()).toBe(true);
      await finger.up();
      await expect
        .poll(() => since(seen).map((e) => `${e.kind} ${e.button}`))
        .toEqual(['press 3', 'release 3']);
      expect(await cue.count()).toBe(0);

      // A two-finger tap: a right click.
      seen = x.buttons().length;
      await finger.down([at(300, 180), at(340, 220)]);
      await finger.up();
      await expect
        .poll(() => since(seen).map((e) => `${e.kind} ${e.button}`))
        .toEqual(['press 3', 'release 3']);

      // A two-finger drag down: the wheel turns up (button 4), a step per 50 phone pixels, and nothing else.
      seen = x.buttons().length;
      const pair = (dy: number) => [
        { x: at(280, 100).x, y: at(280, 100).y + dy },
        { x: at(360, 100).x, y: at(360, 100).y + dy },
      ];
      await finger.down(pair(0));
      for (let dy = 15; dy <= 165; dy += 15) await finger.move(pair(dy));
      await finger.up();
      await expect.poll(() => since(seen).filter((e) => e.kind === 'press').length).toBe(3);
      expect(new Set(since(seen).map((e) => e.button))).toEqual(new Set([4]));
      // And back up: the wheel turns down (button 5).
      seen = x.buttons().length;
      await finger.down(pair(165));
      for (let dy = 150; dy >= 0; dy -= 15) await finger.move(pair(dy));
      await finger.up();
      await expect.poll(() => since(seen).filter((e) => e.kind === 'press').length).toBe(3);
      expect(new Set(since(seen).map((e) => e.button))).toEqual(new Set([5]));

      // A one-finger drag: the left button goes down where it starts and comes up where it ends.
      seen = x.buttons().length;
      await finger.down([at(100, 300)]);
      for (let step = 1; step <= 10; step += 1) await finger.move([at(100 + step * 30, 300 - step * 10)]);
      await finger.up();
      await expect
        .poll(() => since(seen).map((e) => `${e.kind} ${e.button}`))
        .toEqual(['press 1', 'release 1']);
      near(since(seen)[0], 100, 300);
      near(since(seen)[1], 400, 200);
      // None of it scrolled or zoomed the page.
      expect(await page.evaluate<number>('window.scrollY')).toBe(scrollBefore);

      // The keyboard: the button focuses the typing input (the phone shows its keyboard) and shows the row.
      await page.getByRole('button', { name: 'Keyboard' }).click();
      const focused = () =>
        page.evaluate<boolean>(
          `document.activeElement?.getAttribute('aria-label') === 'Type on the desktop'`,
        );
      await expect.poll(() => focused()).toBe(true);
      const keysBefore = (await x.keys()).length;
      await page.keyboard.type('ls -l');
      await page.keyboard.press('Enter');
      await page.keyboard.press('Backspace');
      await page.getByRole('button', { name: 'Esc', exact: true }).click();
      await page.getByRole('button', { name: 'Ctrl', exact: true }).click();
      expect(await page.getByRole('button', { name: 'Ctrl', exact: true }).getAttribute('aria-pressed')).toBe(
        'true',
      );
      await page.keyboard.type('c');
      await page.getByRole('button', { name: 'Up arrow' }).click();
      // The row's buttons kept the focus on the input: the phone's keyboard stays up.
      expect(await focused()).toBe(true);
      const presses = async () =>
        (await x.keys())
          .slice(keysBefore)
          .filter((e) => e.kind === 'press')
          .map((e) => e.keysym);
      // l s space - l Return BackSpace Escape, Control_L c, Up.
      const expected = [0x6c, 0x73, 0x20, 0x2d, 0x6c, 0xff0d, 0xff08, 0xff1b, 0xffe3, 0x63, 0xff52];
      await expect.poll(presses).toEqual(expected);
      // Ctrl was let go after the c, and every key came up.
      const all = (await x.keys()).slice(keysBefore);
      expect(all.filter((e) => e.kind === 'release').length).toBe(expected.length);
      expect(all.findIndex((e) => e.kind === 'release' && e.keysym === 0xffe3)).toBeGreaterThan(
        all.findIndex((e) => e.kind === 'press' && e.keysym === 0x63),
      );
      expect(await page.getByRole('button', { name: 'Ctrl', exact: true }).getAttribute('aria-pressed')).toBe(
        'false',
      );

      // Ctrl+Alt+Del: the three keys down, then up.
      const beforeCad = (await x.keys()).length;
      await page.getByRole('button', { name: 'Ctrl+Alt+Del' }).click();
      await expect
        .poll(async () =>
          (await x.keys())
            .slice(beforeCad)
            .filter((e) => e.kind === 'press')
            .map((e) => e.keysym),
        )
        .toEqual([0xffe3, 0xffe9, 0xffff]);

      // Keyboard again: the phone's keyboard goes away, and the row with it.
      const keyboard = page.getByRole('button', { name: 'Keyboard' });
      await keyboard.click();
      expect(await keyboard.getAttribute('aria-expanded')).toBe('false');
      expect(await focused()).toBe(false);
      expect(await page.getByRole('button', { name: 'Esc', exact: true }).count()).toBe(0);
      // And once more: it comes back.
      await keyboard.click();
      await expect.poll(() => focused()).toBe(true);
      expect(await keyboard.getAttribute('aria-expanded')).toBe('true');

      expect(await accessibilityProblems(page, 'the phone’s desktop with its keyboard')).toEqual([]);
      await t.screenshot('mobile-desktop-touch');
      expect(t.cspViolations).toEqual([]);
    },
  );
});
