import { describe, expect, it } from 'vitest';
import type { Asset, ExecResult, MaintenanceWindow } from '@svc/protocol';
import {
  formatAsset,
  formatAssetTable,
  formatBlastRadius,
  formatEvent,
  formatMaintenanceTable,
  formatProgress,
  formatReview,
  formatResultHeader,
  formatStream,
  formatSummary,
  formatTable,
  isSuccess,
  safeText,
} from './format.js';

const asset: Asset = {
  id: 'ast_01jc0000000000000000000000',
  name: 'web-1',
  hostname: 'web-1.lan',
  platform: 'linux',
  status: 'online',
  source: 'agent',
  ip_addresses: ['10.0.0.5'],
  mac_address: null,
  tags: ['prod'],
  description: null,
  last_seen_at: '2026-01-02T03:04:05.678Z',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
  agent: { connected: true, version: '0.1.0', connected_at: '2026-01-02T03:00:00.000Z' },
  hub_host: false,
};

function result(partial: Partial<ExecResult>): ExecResult {
  return {
    asset_id: asset.id,
    status: 'ok',
    exit_code: 0,
    stdout: '',
    stderr: '',
    truncated: false,
    duration_ms: 12,
    error: null,
    ...partial,
  };
}

describe('tables and fields', () => {
  it('aligns columns without trailing spaces', () => {
    expect(
      formatTable(
        ['A', 'LONGER'],
        [
          ['xxxx', 'y'],
          ['z', ''],
        ],
      ),
    ).toBe('A     LONGER\nxxxx  y\nz');
  });

  it('lists assets with their status and last contact', () => {
    expect(formatAssetTable([asset]).split('\n')).toEqual([
      'NAME   STATUS  PLATFORM  HOSTNAME   LAST SEEN             ID',
      'web-1  online  linux     web-1.lan  2026-01-02 03:04:05Z  ast_01jc0000000000000000000000',
    ]);
  });

  it('shows one asset as aligned fields', () => {
    const text = formatAsset(asset);
    expect(text).toContain('agent:        connected, version 0.1.0');
    expect(text).toContain('tags:         prod');
    expect(text).toContain('mac address:  -');
  });

  it('escapes control characters an agent could send to move the terminal', () => {
    expect(safeText('ok\u001b[2Jgone\u0007')).toBe('ok\\x1b[2Jgone\\x07');
    expect(formatTable(['N'], [['a\u001b]0;x\u0007']])).toBe('N\na\\x1b]0;x\\x07');
    expect(formatStream('line\u001b[31m red\n\tnext')).toBe('line\\x1b[31m red\n\tnext\n');
  });
});

describe('fan-out results', () => {
  it("heads each target's output with its name and outcome", () => {
    expect(formatResultHeader(result({}), 'web-1')).toBe('==> web-1: exit 0 (12 ms)');
    expect(formatResultHeader(result({ exit_code: 3, truncated: true }), 'web-1')).toBe(
      '==> web-1: exit 3 (12 ms, output cut)',
    );
    expect(
      formatResultHeader(result({ status: 'offline', exit_code: null, error: 'agent not connected' }), 'db'),
    ).toBe('==> db: offline: agent not connected (12 ms)');
  });

  it('counts success only for exit code 0', () => {
    expect(isSuccess(result({}))).toBe(true);
    expect(isSuccess(result({ exit_code: 1 }))).toBe(false);
    expect(isSuccess(result({ status: 'timeout', exit_code: null }))).toBe(false);
  });

  it('sums up and shows progress', () => {
    expect(formatSummary({ total: 4, ok: 3, timeout: 0, offline: 1, error: 0 }, 1)).toBe(
      '4 targets: 2 exited 0, 1 exited non-zero, 1 offline',
    );
    expect(formatSummary({ total: 1, ok: 1, timeout: 0, offline: 0, error: 0 }, 0)).toBe(
      '1 target: 1 exited 0',
    );
    expect(formatProgress(12, 300, 2)).toBe('[12/300] 10 ok, 2 failed');
    expect(formatProgress(3, null, 0)).toBe('[3] 3 ok, 0 failed');
  });

  it('ends a stream with one newline, and prints nothing for an empty one', () => {
    expect(formatStream('')).toBe('');
    expect(formatStream('a\n')).toBe('a\n');
    expect(formatStream('a')).toBe('a\n');
  });
});

describe('events', () => {
  it('prints time, type and the plain payload fields on one line', () => {
    expect(
      formatEvent({
        id: 'evt_1',
        type: 'asset.offline',
        ts: '2026-01-02T03:04:05.000Z',
        data: { asset_ids: ['ast_1'], asset_id: 'ast_1', name: 'web-1' },
      } as never),
    ).toBe('2026-01-02 03:04:05Z  asset.offline  asset_id=ast_1 name=web-1');
  });
});

describe('formatBlastRadius and formatReview', () => {
  it('prints the count and one row per dependent, or that nothing depends', () => {
    const text = formatBlastRadius({
      asset_id: 'ast_db',
      dependents: [
        {
          id: 'ast_app',
          name: 'app',
          kind: 'host',
          status: 'online',
          depth: 1,
          path: ['ast_db', 'ast_app'],
          via: 'declared',
        },
        {
          id: 'ast_web',
          name: 'web',
          kind: 'vm',
          status: 'online',
          depth: 2,
          path: ['ast_db', 'ast_app', 'ast_web'],
          via: 'hosts',
        },
      ],
      total: 2,
      assets: 2,
      containers: 0,
      direct: 1,
      max_depth: 10,
      depth_limited: false,
      truncated: false,
    });
    expect(text.split('\n')).toEqual([
      '2 dependents (1 directly; 2 assets, 0 containers)',
      'NAME  KIND  DEPTH  VIA       ID',
      'app   host  1      declared  ast_app',
      'web   vm    2      hosts     ast_web',
    ]);
  });

  it('prints a review with its text indented and escape sequences shown, never run', () => {
    const text = formatReview({
      incident: {
        id: 'inc_1',
        asset_id: 'ast_1',
        title: 'db: down',
        severity: 'critical',
        status: 'resolved',
        alert_count: 1,
        active_alerts: 0,
        opened_at: '2026-11-01T10:00:00.000Z',
        updated_at: '2026-11-01T10:30:00.000Z',
        resolved_at: '2026-11-01T10:30:00.000Z',
        resolved_by: 'usr_1',
      },
      summary: 'line one\nline \u001b[31mtwo',
      cause: '',
      follow_ups: [{ text: 'add a UPS', done: true }],
      updated_at: null,
      updated_by: null,
      window: { from: '2026-11-01T09:45:00.000Z', to: '2026-11-01T10:45:00.000Z' },
      timeline: [
        {
          ts: '2026-11-01T10:00:00.000Z',
          source: 'incident',
          type: 'incident.opened',
          text: 'Incident opened: db: down',
          actor: null,
          ref_id: 'inc_1',
        },
      ],
      timeline_total: 1,
      audit_included: true,
      note: null,
    });
    expect(text).toContain('summary:\n  line one\n  line \\x1b[31mtwo');
    expect(text).toContain('cause:\n  (not written)');
    expect(text).toContain('  [x] add a UPS');
    expect(text).toContain('  2026-11-01 10:00:00Z  incident  Incident opened: db: down');
  });
});

describe('formatMaintenanceTable', () => {
  const base: MaintenanceWindow = {
    id: 'mnt_01jc0000000000000000000000',
    name: 'patch night',
    reason: 'kernel',
    kind: 'recurring',
    asset_ids: [],
    group_ids: [],
    starts_at: null,
    ends_at: null,
    cron: '0 2 * * 0',
    duration_minutes: 120,
    timezone: 'Europe/Berlin',
    current: null,
    next_occurrences: [{ starts_at: '2026-05-03T00:00:00.000Z', ends_at: '2026-05-03T02:00:00.000Z' }],
    created_by: 'key_x',
    created_at: '2026-05-01T00:00:00.000Z',
    updated_at: '2026-05-01T00:00:00.000Z',
  };

  it('shows when each window holds, whether it holds now and when next', () => {
    const oneOff: MaintenanceWindow = {
      ...base,
      name: 'disks',
      kind: 'one_off',
      cron: null,
      duration_minutes: null,
      starts_at: '2026-05-01T10:00:00.000Z',
      ends_at: '2026-05-01T12:00:00.000Z',
      current: { starts_at: '2026-05-01T10:00:00.000Z', ends_at: '2026-05-01T12:00:00.000Z' },
      next_occurrences: [],
    };
    expect(formatMaintenanceTable([base, oneOff]).split('\n')).toEqual([
      'NAME         WHEN                                          NOW                         NEXT                  REASON  ID',
      'patch night  0 2 * * 0 for 120 min (Europe/Berlin)         -                           2026-05-03 00:00:00Z  kernel  mnt_01jc0000000000000000000000',
      'disks        2026-05-01 10:00:00Z .. 2026-05-01 12:00:00Z  until 2026-05-01 12:00:00Z  -                     kernel  mnt_01jc0000000000000000000000',
    ]);
  });
});
