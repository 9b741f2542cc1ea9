import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '@svc/protocol';
import { createLiveStore, describeEvent, pollingInterval, staleKeysOf } from './live-events';

const at = '2026-11-25T12:00:00.000Z';

/** An envelope for the rules under test: only the fields they read need to be real. */
function event(e: {
  type: EventEnvelope['type'];
  data: { asset_ids: string[] } & Record<string, unknown>;
}): EventEnvelope {
  return { id: 'evt_1', ts: at, ...e } as EventEnvelope;
}

const renamed = event({
  type: 'asset.updated',
  data: { asset_ids: ['ast_1'], asset_id: 'ast_1', name: 'web-1', fields: ['name'] },
});
const heartbeat = event({ type: 'heartbeat.update', data: { asset_ids: ['ast_1'], asset_id: 'ast_1' } });

describe('the console and the live feed', () => {
  it('an asset change makes the asset lists, its page and the dashboard stale', () => {
    const keys = staleKeysOf(renamed);
    expect(keys).toContainEqual(['assets']);
    expect(keys).toContainEqual(['status']);
    expect(keys).toContainEqual(['dashboard']);
  });

  it("an operation on an asset refreshes that asset's queries only; heartbeats refresh nothing", () => {
    const restarted = event({
      type: 'service.restarted',
      data: { asset_ids: ['ast_2'], asset_id: 'ast_2', name: 'nginx', active_state: 'active' },
    });
    expect(staleKeysOf(restarted)).toEqual([['assets', 'detail', 'ast_2']]);
    expect(staleKeysOf(heartbeat)).toEqual([]);
  });

  it('alert and incident events refresh the alert pages, the incidents and the dashboard count', () => {
    const acknowledged = event({
      type: 'alert.acknowledged',
      data: { asset_ids: ['ast_1'] },
    });
    expect(staleKeysOf(acknowledged)).toContainEqual(['alerts']);
    const resolved = event({ type: 'incident.resolved', data: { asset_ids: [] } });
    expect(staleKeysOf(resolved)).toContainEqual(['alerts']);
  });

  it('update reports refresh the fleet view and that asset; a run’s progress refreshes that run', () => {
    const changed = event({
      type: 'updates.changed',
      data: {
        asset_ids: ['ast_1'],
        asset_id: 'ast_1',
        updates: 3,
        security_updates: 1,
        reboot_required: false,
      },
    });
    expect(staleKeysOf(changed)).toEqual([
      ['updates', 'fleet'],
      ['updates', 'asset', 'ast_1'],
    ]);
    const target = event({
      type: 'update_run.target_completed',
      data: { asset_ids: ['ast_1'], run_id: 'upr_1', mode: 'dry_run', asset_id: 'ast_1', status: 'ok' },
    });
    expect(staleKeysOf(target)).toEqual([
      ['updates', 'runs'],
      ['updates', 'run', 'upr_1'],
    ]);
    const done = event({ type: 'update_run.completed', data: { asset_ids: ['ast_1'], run_id: 'upr_1' } });
    expect(staleKeysOf(done)).toContainEqual(['updates', 'fleet']);
  });

  it('the store keeps the newest 20 readable events, newest first, without heartbeats', () => {
    const store = createLiveStore();
    let changes = 0;
    store.subscribe(() => (changes += 1));
    for (let i = 0; i < 25; i += 1) store.add({ ...renamed, id: `evt_${i}` });
    store.add(heartbeat);
    expect(store.snapshot().recent).toHaveLength(20);
    expect(store.snapshot().recent[0]?.id).toBe('evt_24');
    store.setState('live');
    store.setState('live');
    expect(changes).toBe(26);
  });

  it('polls slowly while live, at the page’s own pace otherwise', () => {
    expect(pollingInterval('live', 10_000)).toBe(60_000);
    expect(pollingInterval('reconnecting', 10_000)).toBe(10_000);
  });

  it('describes an event by its type and subject', () => {
    expect(describeEvent(renamed)).toBe('asset.updated · web-1');
    expect(describeEvent(heartbeat)).toBe('heartbeat.update · ast_1');
  });
});
