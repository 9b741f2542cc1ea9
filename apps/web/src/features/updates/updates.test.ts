import { describe, expect, it } from 'vitest';
import { emptyRunForm, packageNames, runBody, runFormReady, type RunForm } from './run-form';
import {
  agoText,
  countParts,
  fleetFiltersOf,
  fleetParams,
  fleetQuery,
  isActive,
  versionsText,
} from './updates-text';

const web = { id: 'ast_web', name: 'web-1' };
const onWeb: RunForm = { ...emptyRunForm, targets: { mode: 'assets', picked: [web], groupId: '' } };

describe('the update run form', () => {
  it('sends a dry run of all updates on the picked assets, now, by default', () => {
    expect(runBody(onWeb)).toEqual({
      targets: ['ast_web'],
      mode: 'dry_run',
      selection: 'all',
      refresh: true,
      concurrency: 10,
      start: 'now',
    });
  });

  it('sends an apply’s reboot and timeout, a failure limit and named packages once each', () => {
    const form: RunForm = {
      ...onWeb,
      targets: { mode: 'group', picked: [], groupId: 'grp_lab' },
      mode: 'apply',
      selection: 'named',
      packages: 'openssl, curl\nopenssl  libc6',
      reboot: true,
      concurrency: '2',
      maxFailures: '1',
      timeout: '30',
      start: 'next_window',
    };
    expect(runBody(form)).toEqual({
      group: 'grp_lab',
      mode: 'apply',
      selection: 'named',
      packages: ['openssl', 'curl', 'libc6'],
      reboot_if_required: true,
      timeout_minutes: 30,
      refresh: true,
      concurrency: 2,
      max_failures: 1,
      start: 'next_window',
    });
  });

  it('leaves packages out unless named, and the reboot out of a dry run', () => {
    const body = runBody({ ...onWeb, packages: 'curl', reboot: true, selection: 'security' });
    expect(body).not.toHaveProperty('packages');
    expect(body).not.toHaveProperty('reboot_if_required');
  });

  it('sends a start time as an instant', () => {
    const body = runBody({ ...onWeb, start: 'at', at: '2026-12-01T03:30' });
    expect(body.start).toBe('at');
    expect(body.scheduled_at).toBe(new Date('2026-12-01T03:30').toISOString());
  });

  it('waits for targets, a package for named, a time for at', () => {
    expect(runFormReady(emptyRunForm)).toBe(false);
    expect(runFormReady(onWeb)).toBe(true);
    expect(runFormReady({ ...onWeb, selection: 'named', packages: ' , ' })).toBe(false);
    expect(runFormReady({ ...onWeb, start: 'at', at: '' })).toBe(false);
    expect(packageNames(' a b,a ')).toEqual(['a', 'b']);
  });
});

describe('the Updates pages’ text', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');
  it('says how long ago, in the largest whole unit', () => {
    expect(agoText('2026-11-30T11:59:30Z', now)).toBe('30 seconds ago');
    expect(agoText('2026-11-30T11:15:00Z', now)).toBe('45 minutes ago');
    expect(agoText('2026-11-30T07:00:00Z', now)).toBe('5 hours ago');
    expect(agoText('2026-11-29T11:00:00Z', now)).toBe('1 day ago');
    expect(agoText('2026-11-18T12:00:00Z', now)).toBe('12 days ago');
  });

  it('counts a run’s targets by state', () => {
    const zero = { total: 3, pending: 0, running: 0, ok: 0, failed: 0, offline: 0, skipped: 0, cancelled: 0 };
    expect(countParts(zero)).toEqual([]);
    expect(countParts({ ...zero, failed: 1, ok: 2 })).toEqual([
      { status: 'ok', n: 2 },
      { status: 'failed', n: 1 },
    ]);
    expect(isActive({ status: 'running' })).toBe(true);
    expect(isActive({ status: 'stopped' })).toBe(false);
  });

  it('reads a change’s versions', () => {
    expect(versionsText({ name: 'a', action: 'upgrade', from_version: '1.0', to_version: '1.1' })).toBe(
      '1.0 → 1.1',
    );
    expect(versionsText({ name: 'a', action: 'install', from_version: null, to_version: '2' })).toBe('2');
    expect(versionsText({ name: 'a', action: 'held', from_version: null, to_version: null })).toBe('');
  });

  it('keeps the fleet filters in the address and asks the hub for them', () => {
    const filters = { needsUpdates: true, securityOnly: false, group: 'grp_lab' };
    const params = fleetParams(filters);
    expect(params.toString()).toBe('needs=1&group=grp_lab');
    expect(fleetFiltersOf(params)).toEqual(filters);
    expect(fleetQuery(filters)).toEqual({ needs_updates: true, group: 'grp_lab' });
    expect(fleetQuery(fleetFiltersOf(new URLSearchParams()))).toEqual({});
  });
});
