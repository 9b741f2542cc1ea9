/**
 * Incident reviews through the API: the timeline a caller sees (alerts firing, acknowledged, resolving, the
 * asset's audit entries in the window, in order), writing with PUT and PATCH (audited, published), who may
 * write, what a restricted key and garbage input get, and the Markdown export with hostile text in it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HubEvent } from '../../platform/event-bus.js';
import type { Incident, IncidentReview, MetricSample } from '@svc/protocol';
import { databaseTargets, startTestHub, type TestHub } from '@svc/testkit';

async function seedCpu(t: TestHub, assetId: string, cpu: number) {
  const sample: MetricSample = {
    ts: t.clock.now().toISOString(),
    cpu_percent: cpu,
    memory_used_bytes: 1,
    memory_total_bytes: 4,
    disk_used_bytes: 3,
    disk_total_bytes: 4,
    load1: 0,
    net_rx_bytes: 0,
    net_tx_bytes: 0,
  };
  t.hub.metrics.store.add(assetId, [sample]);
  await t.hub.metrics.store.flush();
}

describe.each(databaseTargets())('incident reviews ($name)', ({ options }) => {
  let t: TestHub;
  let incident: Incident;
  let alertId: string;
  let otherAsset: string;

  beforeAll(async () => {
    t = await startTestHub(options);
    const a = await t.createAsset({ name: 'db-1' });
    otherAsset = (await t.createAsset({ name: 'web-1' })).id;
    const rule = await t.request('POST', '/api/v2/alerts/rules', {
      body: { name: 'hot cpu', kind: 'cpu', threshold_percent: 90, duration_minutes: 0, asset_ids: [a.id] },
    });
    expect(rule.status, rule.text).toBe(201);
    // The asset's creation lies before the review's window (15 minutes before the incident).
    t.clock.advance(20 * 60_000);
    await seedCpu(t, a.id, 97);
    expect(await t.hub.services.alertEvaluator.tick()).toMatchObject({ fired: 1 });
    const [opened] = (await t.request('GET', '/api/v2/incidents')).json.data as (Incident | undefined)[];
    if (!opened) throw new Error('no incident');
    incident = opened;
    alertId = ((await t.request('GET', '/api/v2/alerts')).json.data as { id: string }[])[0]?.id ?? '';
    t.clock.advance(60_000);
    expect((await t.request('POST', `/api/v2/alerts/${alertId}/acknowledge`)).status).toBe(200);
    t.clock.advance(60_000);
    // Something done on the asset during the incident: an audit entry in the window.
    const renamed = await t.request('PUT', `/api/v2/assets/${a.id}`, { body: { description: 'busy' } });
    expect(renamed.status, renamed.text).toBe(200);
    t.clock.advance(60_000);
    await seedCpu(t, a.id, 20);
    expect(await t.hub.services.alertEvaluator.tick()).toMatchObject({ resolved: 1 });
    t.clock.advance(60_000);
    expect((await t.request('POST', `/api/v2/incidents/${incident.id}/resolve`)).status).toBe(200);
  });

  afterAll(async () => {
    await t.close();
  });

  it('assembles the timeline in order from the alerts, the incident and the asset’s audit entries', async () => {
    const res = await t.request('GET', `/api/v2/incidents/${incident.id}/review`);
    expect(res.status, res.text).toBe(200);
    const review = res.json.data as IncidentReview;
    expect(review).toMatchObject({ summary: '', cause: '', follow_ups: [], updated_at: null });
    expect(review.audit_included).toBe(true);
    expect(review.timeline.map((e) => e.type)).toEqual([
      'incident.opened',
      'alert.fired',
      'alert.acknowledged',
      'asset.updated',
      'alert.resolved',
      'incident.resolved',
    ]);
    expect(review.timeline[1]?.text).toContain('hot cpu fired (warning)');
    expect(review.timeline[2]?.actor).toMatch(/^key_/);
    expect(review.timeline_total).toBe(6);
    expect(review.note).toBeNull();
    const times = review.timeline.map((e) => Date.parse(e.ts));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
  });

  it('leaves audit entries out for a key without audit:read, and says so', async () => {
    const key = await t.createKey({ role: 'viewer', scopes: ['alerts:read'] });
    const res = await t.request('GET', `/api/v2/incidents/${incident.id}/review`, { key: key.raw_key });
    expect(res.status, res.text).toBe(200);
    const review = res.json.data as IncidentReview;
    expect(review.audit_included).toBe(false);
    expect(review.timeline.some((e) => e.source === 'audit')).toBe(false);
    expect(review.note).toContain('audit:read');
  });

  it('writes with PUT and PATCH: audited, published, read back', async () => {
    const seen: HubEvent[] = [];
    const stop = t.hub.events.subscribe((e) => seen.push(e), { types: ['incident.review_updated'] });
    const put = await t.request('PUT', `/api/v2/incidents/${incident.id}/review`, {
      body: {
        summary: 'CPU pegged on db-1.\nQueries slowed.',
        cause: 'A runaway report query.',
        follow_ups: [{ text: 'Add a query timeout', done: false }],
      },
    });
    expect(put.status, put.text).toBe(200);
    const patch = await t.request('PATCH', `/api/v2/incidents/${incident.id}/review`, {
      body: { follow_ups: [{ text: 'Add a query timeout', done: true }] },
    });
    expect(patch.status, patch.text).toBe(200);
    stop();
    const review = patch.json.data as IncidentReview;
    expect(review).toMatchObject({
      summary: 'CPU pegged on db-1.\nQueries slowed.',
      cause: 'A runaway report query.',
      follow_ups: [{ text: 'Add a query timeout', done: true }],
    });
    expect(review.updated_by).toMatch(/^key_/);
    expect(seen.map((e) => e.data)).toEqual([
      expect.objectContaining({ asset_ids: [incident.asset_id], fields: ['cause', 'follow_ups', 'summary'] }),
      expect.objectContaining({ incident_id: incident.id, fields: ['follow_ups'] }),
    ]);
    const audit = await t.request('GET', `/api/v2/audit/events?action=incident.review_updated`);
    expect(audit.json.data).toHaveLength(2);
    // The review's own audit entries show in its timeline.
    expect(review.timeline.filter((e) => e.type === 'incident.review_updated')).toHaveLength(2);
  });

  it('lets a viewer read but not write, and a key for other assets neither (404)', async () => {
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    const body = { summary: 'x' };
    const url = `/api/v2/incidents/${incident.id}/review`;
    expect((await t.request('PATCH', url, { body, key: viewer.raw_key })).status).toBe(403);
    const reader = await t.createKey({ role: 'operator', scopes: ['alerts:read'] });
    const noScope = await t.request('PATCH', url, { body, key: reader.raw_key });
    expect(noScope.status).toBe(403);
    expect(noScope.json.error).toBe('insufficient_scope');
    const other = await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [otherAsset] });
    for (const res of [
      await t.request('GET', url, { key: other.raw_key }),
      await t.request('PATCH', url, { body, key: other.raw_key }),
      await t.request('GET', `${url}.md`, { key: other.raw_key }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('db-1');
    }
    expect((await t.request('GET', '/api/v2/incidents/inc_nope/review')).status).toBe(404);
    const after = (await t.request('GET', url)).json.data as IncidentReview;
    expect(after.summary).not.toBe('x');
  });

  it('refuses garbage with 400 naming the field', async () => {
    const url = `/api/v2/incidents/${incident.id}/review`;
    const cases: [string, unknown][] = [
      ['PATCH', {}],
      ['PATCH', { summary: 'x'.repeat(10_001) }],
      ['PATCH', { summary: 'bad \u001b[31m escape' }],
      ['PATCH', { follow_ups: [{ text: '', done: false }] }],
      ['PATCH', { follow_ups: [{ text: 'ok' }] }],
      ['PATCH', { follow_ups: Array.from({ length: 51 }, () => ({ text: 'a', done: false })) }],
      ['PATCH', { extra: 1 }],
      ['PUT', { summary: 'only one field' }],
      ['PATCH', 'not json at all'],
    ];
    for (const [method, body] of cases) {
      const res = await t.request(method, url, { body });
      expect(res.status, `${method} ${JSON.stringify(body).slice(0, 80)}`).toBe(400);
      expect(res.json.error).toBe('validation');
    }
  });

  it('exports Markdown where hostile text stays text', async () => {
    const hostile = [
      '# Not a heading',
      '    indented code?',
      '- not a list',
      '```',
      '<script>alert(1)</script>',
      '[click](javascript:alert(1)) ![img](http://x.test/a.png)',
      '| a | b |',
      '---',
    ].join('\n');
    const put = await t.request('PUT', `/api/v2/incidents/${incident.id}/review`, {
      body: {
        summary: hostile,
        cause: '## Cause\n> quoted',
        follow_ups: [{ text: '] [x] ## item', done: false }],
      },
    });
    expect(put.status, put.text).toBe(200);
    const res = await t.request('GET', `/api/v2/incidents/${incident.id}/review.md`);
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="${incident.id}-review.md"`);
    const md = res.text;
    // Our headings only: every line starting with # is one we wrote.
    expect(md.split('\n').filter((l) => l.startsWith('#'))).toEqual([
      expect.stringMatching(/^# Incident review: db\\-1\\: cpu/),
      '## Summary',
      '## Cause',
      '## Follow-ups',
      '## Timeline',
    ]);
    expect(md).not.toContain('<script>');
    expect(md).not.toContain('](');
    expect(md).not.toContain('```');
    expect(md).not.toMatch(/^ {4}/m);
    expect(md).not.toMatch(/^> /m);
    expect(md).not.toMatch(/^---$/m);
    expect(md).toContain('\\# Not a heading');
    expect(md).toContain('\\<script\\>alert\\(1\\)\\<\\/script\\>');
    expect(md).toContain('- [ ] \\] \\[x\\] \\#\\# item');
    expect(md).toContain('- 20');
  });
});
