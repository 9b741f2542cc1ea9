import { describe, expect, it } from 'vitest';
import { englishPushTexts, notificationText, readPushTexts, type PushMessage } from './push-texts';

const german = {
  alertOne: 'Ein Alarm ({severity})',
  alertsMany: '{count} Alarme ({severity})',
  incident: 'Vorfall ({severity})',
  incidentOn: 'Offener Vorfall auf {asset}',
  locked: 'Entsperren Sie die App, um Details zu sehen',
  severities: { info: 'Info', warning: 'Warnung', critical: 'kritisch' },
};

const alerts = (count: number, more = 0): PushMessage => ({
  kind: 'alerts',
  title: 'db-1 is offline',
  severity: 'critical',
  alerts: Array.from({ length: count }, (_, i) => ({
    alert_id: `a${String(i)}`,
    asset_id: 'db-1',
    summary: `s${String(i)}`,
  })),
  more,
});

const incident: PushMessage = {
  kind: 'incident',
  title: 'db-1',
  severity: 'warning',
  incident: { id: 'i1', asset_id: 'db-1', title: 'db-1 unreachable', status: 'open' },
};

describe('push notification texts', () => {
  it('writes a hidden-details notification in the language the app stored', () => {
    const texts = readPushTexts(german);
    expect(notificationText(alerts(1), texts, false)).toEqual({
      title: 'Ein Alarm (kritisch)',
      body: 'Entsperren Sie die App, um Details zu sehen',
    });
    expect(notificationText(alerts(2, 3), texts, false).title).toBe('5 Alarme (kritisch)');
    expect(notificationText(incident, texts, false).title).toBe('Vorfall (Warnung)');
  });

  it('shows names and summaries only when the reader chose full details', () => {
    const texts = readPushTexts(german);
    expect(notificationText(alerts(2), texts, true)).toEqual({ title: 'db-1 is offline', body: 's0\ns1' });
    expect(notificationText(incident, texts, true)).toEqual({
      title: 'db-1 unreachable',
      body: 'Offener Vorfall auf db-1',
    });
  });

  it('falls back to English for what is missing or not a text, and never fills what the push did not bring', () => {
    const texts = readPushTexts({ alertOne: 42, locked: 'x'.repeat(201), severities: { critical: '' } });
    expect(texts).toEqual(englishPushTexts);
    expect(readPushTexts(null)).toEqual(englishPushTexts);
    const odd = readPushTexts({ ...german, alertOne: 'Alarm {severity} {unknown}' });
    expect(notificationText(alerts(1), odd, false).title).toBe('Alarm kritisch {unknown}');
  });
});
