import { describe, expect, it } from 'vitest';
import type { MaintenanceWindow, Schedule, ScheduleRun } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useOperations } from '../../testing/operations-app.js';
import { connectExecCountingAgent } from '../../testing/exec-counting-agent.js';

describe.each(databaseTargets())(
  'schedules that run only inside a maintenance window ($name)',
  ({ options }) => {
    const use = useOperations(options);

    it('skip a tick outside a window, recorded with the reason, and run the tick inside one', async () => {
      const { t, ops } = use();
      const asset = await t.createAsset({ name: 'patch-me' });
      const agent = connectExecCountingAgent(ops.gateway, asset.id, () => 'patched\n');
      const created = await ops.request('POST', '/api/v2/schedules', {
        body: {
          name: 'patch',
          cron: '0 * * * * *',
          command: 'apt-get upgrade',
          targets: [asset.id],
          only_in_maintenance_window: true,
        },
      });
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      const schedule = created.json.data as Schedule;
      expect(schedule.only_in_maintenance_window).toBe(true);
      const first = Date.parse(schedule.next_run_at ?? '');

      // The first tick: no window holds the asset, so it is skipped and says why.
      t.clock.set(new Date(first + 100));
      await ops.scheduler.runDue();
      await ops.scheduler.idle();
      expect(agent.calls).toBe(0);
      const runsOf = async () =>
        (await ops.request('GET', `/api/v2/schedules/${schedule.id}/runs`)).json.data as ScheduleRun[];
      const [skipped] = await runsOf();
      expect(skipped).toMatchObject({
        status: 'skipped',
        tick_at: new Date(first).toISOString(),
        started_at: null,
      });
      expect(skipped?.error).toContain('outside');
      expect(skipped?.error).toContain(asset.id);
      expect(ops.events.filter((e) => e.type === 'schedule.completed').map((e) => e.data)).toEqual([
        expect.objectContaining({ schedule_id: schedule.id, status: 'skipped' }),
      ]);

      // A window over the next tick: that one runs.
      const window = await t.request('POST', '/api/v2/maintenance/windows', {
        body: {
          name: 'patch window',
          reason: 'monthly patches',
          asset_ids: [asset.id],
          starts_at: new Date(first + 30_000).toISOString(),
          ends_at: new Date(first + 90_000).toISOString(),
        },
      });
      expect(window.status, window.text).toBe(201);
      expect((window.json.data as MaintenanceWindow).kind).toBe('one_off');
      t.clock.set(new Date(first + 60_100));
      await ops.scheduler.runDue();
      await ops.scheduler.idle();
      expect(agent.calls).toBe(1);
      expect((await runsOf()).map((r) => r.status)).toEqual(['completed', 'skipped']);

      // Turned off, the schedule runs whatever the windows.
      const patched = await ops.request('PATCH', `/api/v2/schedules/${schedule.id}`, {
        body: { only_in_maintenance_window: false },
      });
      expect(patched.json.data).toMatchObject({ only_in_maintenance_window: false });
      t.clock.set(new Date(first + 120_100));
      await ops.scheduler.runDue();
      await ops.scheduler.idle();
      expect(agent.calls).toBe(2);
    });
  },
);
