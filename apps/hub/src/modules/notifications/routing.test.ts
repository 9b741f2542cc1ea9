import { describe, expect, it } from 'vitest';
import { inQuietHours, isTimeZone, routeAlert, type ChannelRouting } from './routing.js';

const channel: ChannelRouting = { events: ['alert.fired'], minSeverity: 'warning', quietHours: null };
const noon = new Date('2026-11-25T12:00:00Z');

describe('alert routing', () => {
  it.each([
    ['a routed warning', { type: 'alert.fired', severity: 'warning' }, 'info', 'send'],
    [
      'a type the channel does not take',
      { type: 'alert.resolved', severity: 'critical' },
      'info',
      'not_routed',
    ],
    ['below the channel severity', { type: 'alert.fired', severity: 'info' }, 'info', 'below_severity'],
    [
      'below the hub-wide severity',
      { type: 'alert.fired', severity: 'warning' },
      'critical',
      'below_severity',
    ],
    ['a critical one', { type: 'alert.fired', severity: 'critical' }, 'critical', 'send'],
  ] as const)('%s', (_name, alert, hubMinimum, expected) => {
    expect(routeAlert(channel, alert, hubMinimum, noon)).toBe(expected);
  });

  it('holds back all but critical alerts in quiet hours', () => {
    const quiet = { ...channel, quietHours: { start: '11:00', end: '13:00' } };
    expect(routeAlert(quiet, { type: 'alert.fired', severity: 'warning' }, 'info', noon)).toBe('quiet_hours');
    expect(routeAlert(quiet, { type: 'alert.fired', severity: 'critical' }, 'info', noon)).toBe('send');
  });
});

describe('quiet hours', () => {
  it.each([
    ['22:00', '07:00', '2026-11-25T23:30:00Z', true],
    ['22:00', '07:00', '2026-11-25T06:59:00Z', true],
    ['22:00', '07:00', '2026-11-25T07:00:00Z', false],
    ['22:00', '07:00', '2026-11-25T12:00:00Z', false],
    ['09:00', '17:00', '2026-11-25T09:00:00Z', true],
    ['09:00', '09:00', '2026-11-25T09:00:00Z', false],
  ])('%s to %s at %s: %s', (start, end, at, expected) => {
    expect(inQuietHours({ start, end }, new Date(at))).toBe(expected);
  });

  it('reads the clock in the window time zone', () => {
    // 21:30 UTC is 22:30 in Berlin (winter time): inside 22:00-07:00 there, not in UTC.
    const at = new Date('2026-11-25T21:30:00Z');
    expect(inQuietHours({ start: '22:00', end: '07:00', time_zone: 'Europe/Berlin' }, at)).toBe(true);
    expect(inQuietHours({ start: '22:00', end: '07:00' }, at)).toBe(false);
  });

  it('knows time zone names', () => {
    expect(isTimeZone('Europe/Berlin')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });
});
