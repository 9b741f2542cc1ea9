/**
 * The console's layout at a laptop's 1280×800, measured in chromium: the dashboard's busiest-assets table
 * stays inside its card (every column, the Disk one last, visible), and the assets list gives an asset's name
 * the room (at least 40 characters of a long one, with the whole name in its tooltip) rather than to columns
 * that are empty.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectFakeAgent, createManualAsset, hourOfSamples, type EnrolledFake } from './fleet.js';
import { useConsole } from './harness.js';

const h = useConsole({ viewport: { width: 1280, height: 800 } });

// Long names are common (a host's FQDN, a naming scheme), and ten thousand of them may share a prefix.
const busyName = 'build-runner-amd64-production-eu-west-01';
const longName = 'fleet-node-with-a-long-common-prefix-rack-0042-eu-west-0000042';

let fake: EnrolledFake;

beforeAll(async () => {
  fake = await connectFakeAgent(h(), busyName, {});
  fake.agent.metrics(hourOfSamples());
  await createManualAsset(h(), longName);
}, 60_000);

afterAll(() => {
  fake.agent.close();
});

describe('the console at 1280×800', () => {
  it('keeps the busiest-assets table inside its card, the Disk column whole', async () => {
    const t = h();
    await t.signIn('owner');
    const panel = t.page.locator('section.panel', {
      has: t.page.getByRole('heading', { name: 'Busiest online assets' }),
    });
    await panel.getByRole('link', { name: busyName }).waitFor();
    await panel.getByText(/\d+ %/).first().waitFor();
    // Browser code as text: this program has Node's types, not the DOM's.
    const box = await t.page.evaluate<{
      scrollWidth: number;
      clientWidth: number;
      tableScrollWidth: number;
      tableClientWidth: number;
      tableRight: number;
      diskHeader: string;
      diskRight: number;
      inner: number;
    }>(`(() => {
      const section = document.getElementById('busiest-title').closest('section');
      const table = section.querySelector('table');
      const disk = [...section.querySelectorAll('thead th')].at(-1);
      const inner = section.getBoundingClientRect().right - parseFloat(getComputedStyle(section).paddingRight);
      return {
        scrollWidth: section.scrollWidth,
        clientWidth: section.clientWidth,
        tableScrollWidth: table.scrollWidth,
        tableClientWidth: table.clientWidth,
        tableRight: table.getBoundingClientRect().right,
        diskHeader: disk.textContent,
        diskRight: disk.getBoundingClientRect().right,
        inner,
      };
    })()`);
    expect(box.diskHeader).toBe('Disk');
    expect(box.scrollWidth, JSON.stringify(box)).toBeLessThanOrEqual(box.clientWidth);
    expect(box.tableScrollWidth, JSON.stringify(box)).toBeLessThanOrEqual(box.tableClientWidth);
    expect(box.tableRight, JSON.stringify(box)).toBeLessThanOrEqual(box.inner + 0.5);
    expect(box.diskRight, JSON.stringify(box)).toBeLessThanOrEqual(box.inner + 0.5);
    await t.screenshot('dashboard-1280');
  });

  it('shows at least 40 characters of a long asset name, the whole name in its tooltip', async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/assets?q=${encodeURIComponent(longName)}`);
    const cell = t.page.getByRole('rowheader', { name: longName });
    await cell.waitFor();
    const shown = await t.page.evaluate<{
      text: string;
      room: number;
      needed: number;
      visible: number;
      title: string | null;
    }>(`(() => {
      const th = [...document.querySelectorAll('tbody th')].find((cell) => cell.textContent.includes(${JSON.stringify(longName)}));
      const link = th.querySelector('a');
      const style = getComputedStyle(th);
      const room = th.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const text = link.textContent;
      const needed = link.getBoundingClientRect().width;
      return {
        text,
        room,
        needed,
        // The characters that fit: all of them, or the share of the text's width the cell has room for.
        visible: needed <= room ? text.length : Math.floor((text.length * room) / needed),
        title: link.getAttribute('title') ?? th.getAttribute('title'),
      };
    })()`);
    expect(shown.text).toBe(longName);
    expect(shown.visible, JSON.stringify(shown)).toBeGreaterThanOrEqual(40);
    expect(shown.title).toBe(longName);
  });
});
