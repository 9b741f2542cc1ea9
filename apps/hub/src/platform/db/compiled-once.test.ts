import { describe, expect, it } from 'vitest';
import { newId } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { findAssetSummaries } from '../../modules/assets/assets.repository.js';
import { insertAuditEvents, type AuditRow } from '../../modules/audit/audit.repository.js';

describe.each(databaseTargets())('statements compiled once ($name)', ({ options }) => {
  const hub = useTestHub(options);

  it('inserts every audit row of a large batch with its own values, full chunks and the rest', async () => {
    const { db } = hub().hub.database;
    const rows: AuditRow[] = Array.from({ length: 1_003 }, (_, i) => ({
      id: newId('event'),
      ts: new Date(Date.UTC(2026, 10, 23, 0, 0, i % 60, i % 1000)).toISOString(),
      actor_type: 'api_key',
      actor_id: i % 2 === 0 ? `key_${i}` : null,
      action: 'exec.run',
      target_type: 'asset',
      target_id: `ast_${i}`,
      asset_id: i % 3 === 0 ? null : `ast_${i}`,
      ip: '127.0.0.1',
      request_id: `req_${i}`,
      detail: JSON.stringify({ n: i, text: i === 7 ? '\u0000svc-slot:0:id looks like a marker' : 'x' }),
    }));
    const versions = hub().hub.database.writeVersions;
    const before = versions?.of('audit_events') ?? 0;
    // Twice: the second batch runs the statements compiled for the first.
    await insertAuditEvents(db, rows.slice(0, 500));
    await insertAuditEvents(db, rows.slice(500));
    // Each run of a compiled statement is still seen as a write of its table (3 statements: 500, 500, 3).
    if (versions) expect(versions.of('audit_events')).toBe(before + 3);
    const stored = await db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'exec.run')
      .where('request_id', 'like', 'req_%')
      .execute();
    const byId = new Map(stored.map((r) => [r.id, r]));
    expect(stored).toHaveLength(rows.length);
    for (const row of rows) expect(byId.get(row.id)).toEqual(row);
  });

  it('finds exactly the existing assets among more than 500 ids', async () => {
    const t = hub();
    const made: string[] = [];
    for (let i = 0; i < 12; i++) made.push((await t.createAsset({ name: `batch-${i}` })).id);
    const unknown = Array.from({ length: 1_190 }, () => newId('asset'));
    const ids = [...unknown.slice(0, 600), ...made, ...unknown.slice(600)];
    for (let round = 0; round < 2; round++) {
      const found = await findAssetSummaries(t.hub.database.db, ids);
      expect(found.map((r) => r.id).sort()).toEqual([...made].sort());
      expect(found.find((r) => r.id === made[3])?.name).toBe('batch-3');
    }
  });
});
