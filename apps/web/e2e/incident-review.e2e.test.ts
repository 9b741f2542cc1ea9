/**
 * Incident reviews and blast radius in chromium against a real hub (rules evaluated every second): a fake
 * agent stopped opens an incident; its review page shows the timeline, checks what is written as the hub
 * does, saves it and exports it as Markdown; the asset page says what depends on the asset, the dependency
 * graph highlights it; a viewer reads the review without a way to change it. Each page passes axe.
 */
import fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { Incident, IncidentReview } from '@svc/protocol';
import { accessibilityProblems } from './axe.js';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';
import { openNav, useConsole } from './harness.js';

const h = useConsole({ env: { SVC_ALERT_INTERVAL_S: '1' } });
const fakes: EnrolledFake[] = [];
let incident: Incident;
let dbId: string;
let appId: string;

afterAll(() => {
  for (const fake of fakes) fake.agent.close();
});

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${what}: not reached in time`);
}

describe('incident reviews and blast radius', () => {
  it('reviews an incident: timeline, checked fields, saved, exported as Markdown', async () => {
    const t = h();
    const fake = await connectFakeAgent(t, 'db-box', {});
    fakes.push(fake);
    dbId = fake.assetId;
    const app = await t.api('POST', '/api/v2/assets', { name: 'app-box' });
    expect(app.status, app.text).toBe(201);
    appId = (app.json.data as { id: string }).id;
    const link = await t.api('POST', '/api/v2/dependencies/links', { from: appId, to: dbId });
    expect(link.status, link.text).toBe(201);
    const rule = await t.api('POST', '/api/v2/alerts/rules', {
      name: 'db gone',
      kind: 'offline',
      duration_minutes: 0,
      asset_ids: [dbId],
    });
    expect(rule.status, rule.text).toBe(201);
    fake.agent.close();
    await until(async () => {
      const res = await t.api('GET', '/api/v2/incidents');
      return (res.json.data as Incident[]).length > 0;
    }, 'the incident opening');
    [incident] = (await t.api('GET', '/api/v2/incidents')).json.data as [Incident];

    await t.signIn('owner');
    await openNav(t.page, 'Incidents');
    await t.page.getByRole('link', { name: `Review ${incident.title}` }).click();
    await t.page.getByRole('heading', { name: 'Incident review', level: 1 }).waitFor();
    const timeline = t.page.getByRole('list', { name: 'Timeline' });
    await timeline.getByText('db gone fired (warning)', { exact: false }).waitFor();
    await timeline.getByText(`Incident opened: ${incident.title}`).waitFor();

    await t.page.getByLabel('Summary').fill('The database host went away.');
    await t.page.getByLabel('Cause').fill('# A power cut\n<b>not bold</b>');
    await t.page.getByRole('button', { name: 'Add follow-up' }).click();
    await t.page.getByRole('button', { name: 'Save review' }).click();
    await t.page.getByText('each follow-up needs a text').waitFor();
    await t.page.getByLabel('Follow-up 1', { exact: true }).fill('Put the host on a UPS');
    await t.page.getByRole('button', { name: 'Save review' }).click();
    await t.page.getByRole('status').getByText('Saved.').waitFor();
    const saved = (await t.api('GET', `/api/v2/incidents/${incident.id}/review`)).json.data as IncidentReview;
    expect(saved).toMatchObject({
      summary: 'The database host went away.',
      cause: '# A power cut\n<b>not bold</b>',
      follow_ups: [{ text: 'Put the host on a UPS', done: false }],
    });
    expect(await accessibilityProblems(t.page, 'the review page')).toEqual([]);
    await t.screenshot('incident-review');

    const [download] = await Promise.all([
      t.page.waitForEvent('download'),
      t.page.getByRole('button', { name: 'Export Markdown' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${incident.id}-review.md`);
    const markdown = fs.readFileSync(await download.path(), 'utf8');
    expect(markdown).toContain('## Summary\n\nThe database host went away\\.');
    expect(markdown).toContain('\\# A power cut\n\\<b\\>not bold\\<\\/b\\>');
    expect(markdown).toContain('- [ ] Put the host on a UPS');
  });

  it('says on the asset page what depends on it, and highlights it in the graph', async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/assets/${dbId}`);
    const panel = t.page.getByRole('region', { name: 'Blast radius' });
    await panel.getByText('1 asset depends on this.').waitFor();
    await panel.getByRole('link', { name: 'app-box' }).waitFor();
    expect(await accessibilityProblems(t.page, 'the asset page')).toEqual([]);

    await openNav(t.page, 'Dependencies');
    await t.page.getByLabel('What breaks if this goes down').selectOption(dbId);
    await t.page.getByRole('status').getByText('db-box: 1 asset depends on this.').waitFor();
    await expect
      .poll(() => t.page.locator(`g[data-node-id="${appId}"]`).getAttribute('class'))
      .toContain('in-blast');
    expect(await t.page.locator(`g[data-node-id="${dbId}"]`).getAttribute('class')).toContain('blast-root');
    expect(await accessibilityProblems(t.page, 'the dependency graph')).toEqual([]);
    await t.screenshot('blast-radius');
  });

  it('shows a viewer the review with no way to change it', async () => {
    const t = h();
    await t.signIn('viewer');
    await t.page.goto(`${t.baseUrl}/incidents/${incident.id}`);
    await t.page.getByLabel('Summary').waitFor();
    expect(await t.page.getByLabel('Summary').inputValue()).toBe('The database host went away.');
    expect(await t.page.getByLabel('Summary').getAttribute('readonly')).not.toBeNull();
    expect(await t.page.getByRole('button', { name: 'Save review' }).count()).toBe(0);
    expect(await t.page.getByRole('button', { name: 'Add follow-up' }).count()).toBe(0);
  });
});
