import { describe, expect, it } from 'vitest';
import type { MaintenanceWindow } from '@svc/protocol';
import { coversMoreThanPicker, createBody, updateBody, windowForm } from './window-form';

const base: MaintenanceWindow = {
  id: 'mw_1',
  name: 'patch night',
  reason: 'kernel updates',
  kind: 'recurring',
  asset_ids: ['ast_db'],
  group_ids: [],
  starts_at: null,
  ends_at: null,
  cron: '0 2 * * 0',
  duration_minutes: 120,
  timezone: 'Europe/Berlin',
  current: null,
  next_occurrences: [],
  created_by: 'usr_1',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

const oneOff: MaintenanceWindow = {
  ...base,
  kind: 'one_off',
  cron: null,
  duration_minutes: null,
  timezone: 'UTC',
  starts_at: '2026-03-01T10:00:00.000Z',
  ends_at: '2026-03-01T12:00:00.000Z',
  asset_ids: [],
  group_ids: ['grp_lab'],
};

describe('the maintenance window form', () => {
  it('opens an edit with the window’s own values and targets', () => {
    const form = windowForm(base, 'UTC');
    expect(form).toMatchObject({
      name: 'patch night',
      kind: 'recurring',
      cron: '0 2 * * 0',
      duration: '120',
    });
    expect(form.timezone).toBe('Europe/Berlin');
    expect(form.targets).toEqual({ mode: 'assets', picked: [{ id: 'ast_db', name: 'ast_db' }], groupId: '' });
    expect(windowForm(oneOff, 'UTC').targets).toEqual({ mode: 'group', picked: [], groupId: 'grp_lab' });
  });

  it('sends nothing for an edit that changed nothing', () => {
    expect(updateBody(base, windowForm(base, 'UTC'), false)).toEqual({});
    expect(updateBody(oneOff, windowForm(oneOff, 'UTC'), false)).toEqual({});
  });

  it('sends only the fields edited', () => {
    const form = { ...windowForm(base, 'UTC'), reason: ' firmware ', cron: '30 3 * * 6' };
    expect(updateBody(base, form, false)).toEqual({ reason: 'firmware', cron: '30 3 * * 6' });
  });

  it('sends the whole timing of the other kind on a switch', () => {
    const toRecurring = { ...windowForm(oneOff, 'UTC'), kind: 'recurring' as const, cron: '0 4 * * *' };
    expect(updateBody(oneOff, toRecurring, false)).toEqual({
      cron: '0 4 * * *',
      duration_minutes: 120,
      timezone: 'UTC',
    });
    const toOneOff = {
      ...windowForm(base, 'UTC'),
      kind: 'one_off' as const,
      start: '2026-04-01T10:00',
      end: '2026-04-01T11:00',
    };
    const body = updateBody(base, toOneOff, false);
    expect(Object.keys(body).sort()).toEqual(['ends_at', 'starts_at']);
    expect(Date.parse(body.ends_at ?? '') - Date.parse(body.starts_at ?? '')).toBe(3_600_000);
  });

  it('replaces the targets only once they were touched', () => {
    const form = {
      ...windowForm(base, 'UTC'),
      targets: { mode: 'group' as const, picked: [], groupId: 'grp_x' },
    };
    expect(updateBody(base, form, false)).toEqual({});
    expect(updateBody(base, form, true)).toEqual({ asset_ids: [], group_ids: ['grp_x'] });
  });

  it('creates with the chosen kind’s timing and one kind of target', () => {
    const form = {
      ...windowForm(null, 'Europe/Paris'),
      name: 'n',
      reason: 'r',
      kind: 'recurring' as const,
      targets: { mode: 'assets' as const, picked: [{ id: 'ast_a', name: 'a' }], groupId: '' },
    };
    expect(createBody(form)).toEqual({
      name: 'n',
      reason: 'r',
      asset_ids: ['ast_a'],
      cron: '0 2 * * 0',
      duration_minutes: 120,
      timezone: 'Europe/Paris',
    });
  });

  it('knows when a window covers more than the picker can show', () => {
    expect(coversMoreThanPicker(base)).toBe(false);
    expect(coversMoreThanPicker({ ...base, group_ids: ['grp_a'] })).toBe(true);
    expect(coversMoreThanPicker({ ...oneOff, group_ids: ['grp_a', 'grp_b'] })).toBe(true);
  });
});
