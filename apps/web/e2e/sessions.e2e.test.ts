/**
 * A terminal through the hub in chromium, on the hub's real local agent: type a command, see its output,
 * reload and re-attach to the same session (the earlier output is replayed), close it, and play the
 * recording back in the asciinema player (the player is shown and the recording it loads by id holds the
 * command's output; that the player draws it is not asserted yet).
 */
import { describe, expect, it } from 'vitest';
import { useConsole } from './harness.js';
import { openLocalTerminal } from './fleet.js';

const h = useConsole({ localAgent: true });

describe('terminal sessions in the console', () => {
  it(
    'types, re-attaches after a reload, closes, and plays the recording back',
    { timeout: 120_000 },
    async () => {
      const t = h();
      await openLocalTerminal(t);
      const { page } = t;
      await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Live');
      const rows = page.locator('.xterm-rows');
      await page.locator('.terminal-box').click();
      await page.keyboard.type('echo svc-$((40+2))');
      await page.keyboard.press('Enter');
      await expect.poll(() => rows.textContent(), { timeout: 15_000 }).toContain('svc-42');
      await t.screenshot('sessions-terminal');

      await page.reload();
      await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Live');
      await expect
        .poll(() => page.locator('.xterm-rows').textContent(), { timeout: 15_000 })
        .toContain('svc-42');

      await page.getByRole('button', { name: 'Close session' }).click();
      await expect
        .poll(() => page.getByRole('status').textContent(), { timeout: 15_000 })
        .toMatch(/Session ended|Disconnected/);

      await page.goto(`${t.baseUrl}/sessions`);
      const recordings = page.getByRole('table', { name: 'Recordings' });
      await recordings.getByRole('button', { name: 'Play' }).first().click();
      const player = page.getByLabel('Recording player');
      await expect.poll(() => player.locator('.ap-player').count(), { timeout: 15_000 }).toBe(1);
      // What the player fetched: the recording by id, with the command's output in it.
      const cast = await t.api('GET', '/api/v2/recordings');
      const recordingId = (cast.json.data as { id: string }[])[0]?.id ?? '';
      const text = await page.evaluate(
        async (url) => (await fetch(url)).text(),
        `/api/v2/recordings/${encodeURIComponent(recordingId)}/cast`,
      );
      expect(text).toContain('svc-42');
      await expect
        .poll(async () => (await player.innerHTML()).replace(/<[^>]+>/g, ''), { timeout: 30_000 })
        .toContain('svc-42');
      await t.screenshot('sessions-recordings');
      // The terminal and the player work under the console's CSP: nothing refused, not even a style.
      expect(t.cspViolations).toEqual([]);
    },
  );
});
