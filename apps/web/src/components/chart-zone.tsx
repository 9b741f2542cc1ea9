/**
 * The time zone charts show their times in: the viewer's own (the browser's) or the hub's (from
 * `GET /hub/status` `time_zone`; the hub stores and answers in UTC, its zone is where it runs). The reader's
 * choice is kept in localStorage like the theme and shared by every chart on the page, so switching it on one
 * chart switches them all (decision 0098).
 */
import { useSyncExternalStore } from 'react';
import { useQuery } from '@tanstack/react-query';
import { hub } from '../api/client';
import { useT, type I18n } from '../i18n/I18nProvider';
import { formatTimeIn } from './units';

type ZoneChoice = 'viewer' | 'hub';

const storageKey = 'svc.chartZone';
const listeners = new Set<() => void>();
let current: ZoneChoice = readChoice();

function readChoice(): ZoneChoice {
  try {
    return localStorage.getItem(storageKey) === 'hub' ? 'hub' : 'viewer';
  } catch {
    return 'viewer';
  }
}

function chooseZone(choice: ZoneChoice): void {
  current = choice;
  try {
    localStorage.setItem(storageKey, choice);
  } catch {
    // private mode: the choice lasts for this page only
  }
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** A zone Intl knows, else UTC (a formatter built with an unknown zone throws). */
function knownZone(zone: string | undefined): string | undefined {
  if (zone === undefined) return undefined;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
}

const viewerZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export interface ChartZone {
  choice: ZoneChoice;
  /** The zone times are shown in now (the viewer's until the hub's is known). */
  zone: string;
  viewerZone: string;
  /** Undefined until the hub has said. */
  hubZone: string | undefined;
  choose: (choice: ZoneChoice) => void;
}

export function useChartZone(): ChartZone {
  const choice = useSyncExternalStore(subscribe, () => current);
  const status = useQuery({
    queryKey: ['hub', 'status'],
    queryFn: async () => (await hub.call('hub.status')).data,
    staleTime: 5 * 60_000,
  });
  const hubZone = knownZone(status.data?.time_zone);
  return {
    choice,
    zone: choice === 'hub' && hubZone !== undefined ? hubZone : viewerZone,
    viewerZone,
    hubZone,
    choose: chooseZone,
  };
}

/** Two pressed-or-not buttons: the viewer's zone or the hub's, each named with its zone. */
export function ChartZoneSwitch({ zone }: { zone: ChartZone }) {
  const { t } = useT();
  return (
    <div className="segmented chart-zone" role="group" aria-label={t('chart.zoneSwitch')}>
      <button
        type="button"
        aria-pressed={zone.choice === 'viewer'}
        onClick={() => {
          zone.choose('viewer');
        }}
      >
        {t('chart.zoneViewer', { zone: zone.viewerZone })}
      </button>
      <button
        type="button"
        aria-pressed={zone.choice === 'hub'}
        disabled={zone.hubZone === undefined}
        onClick={() => {
          zone.choose('hub');
        }}
      >
        {t('chart.zoneHub', { zone: zone.hubZone ?? '…' })}
      </button>
    </div>
  );
}

/**
 * A sample's time as a tooltip heads it: in the zone chosen, then in the other one when they differ (the
 * viewer who reads the hub's clock still sees their own, and the other way round).
 */
export function zonedTimeText(t: I18n['t'], ms: number, zone: ChartZone): string {
  const other = zone.zone === zone.viewerZone ? zone.hubZone : zone.viewerZone;
  const shown = t('chart.timeInZone', { time: formatTimeIn(ms, zone.zone, 'full'), zone: zone.zone });
  return other === undefined || other === zone.zone
    ? shown
    : `${shown} · ${t('chart.timeInZone', { time: formatTimeIn(ms, other, 'clock'), zone: other })}`;
}
