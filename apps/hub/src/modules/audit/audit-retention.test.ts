import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@svc/hub';
import { databaseTargets, startTestHub, type TestHub } from '@svc/testkit';

const dayMs = 24 * 60 * 60 * 1000;

describe.each(databaseTargets())('audit retention ($name)', ({ options }) => {
  let t: TestHub;
  const clock = new ManualClock(new Date('2026-01-01T00:00:00.000Z'));

  beforeAll(async () => {
    t = await startTestHub({ ...options, clock });
  });
  afterAll(async () => {
    await t.close();
  });

  async function auditActions(): Promise<string[]> {
    const res = await t.request('GET', '/api/v2/audit/events?per_page=500');
    expect(res.status).toBe(200);
    return (res.json.data as { action: string }[]).map((e) => e.action);
  }

  it('events older than retention.audit_days are purged by the run; newer ones stay', async () => {
    await t.createAsset({ name: 'old-one' });
    clock.advance(20 * dayMs);
    await t.createAsset({ name: 'recent-one' });
    const patch = await t.request('PATCH', '/api/settings/retention', {
      body: { 'retention.audit_days': 10 },
    });
    expect(patch.status).toBe(200);
    const before = await auditActions();
    expect(before.filter((a) => a === 'asset.created')).toHaveLength(2);

    const result = await t.hub.retention.runOnce();

    expect(result.deleted.audit_events).toBeGreaterThanOrEqual(1);
    const after = await auditActions();
    expect(after.filter((a) => a === 'asset.created')).toHaveLength(1);
    // The settings change itself is recent and stays.
    expect(after).toContain('settings.changed');
    expect(after.length).toBe(before.length - result.deleted.audit_events!);
  });

  it('more than one batch of old events goes in several short deletes', async () => {
    const rows = Array.from({ length: 2300 }, (_, i) => ({
      id: `aud_bulk_${String(i).padStart(5, '0')}`,
      ts: new Date(clock.now().getTime() - 400 * dayMs - i).toISOString(),
      actor_type: 'system',
      actor_id: null,
      action: 'bulk.old',
      target_type: null,
      target_id: null,
      asset_id: null,
      ip: null,
      request_id: null,
      detail: '{}',
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await t.hub.database.db
        .insertInto('audit_events')
        .values(rows.slice(i, i + 500))
        .execute();
    }
    const result = await t.hub.retention.runOnce();
    expect(result.deleted.audit_events).toBe(2300);
    expect(result.batches).toBeGreaterThanOrEqual(3);
    expect(await auditActions()).not.toContain('bulk.old');
  });
});
