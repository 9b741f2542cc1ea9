/**
 * The words of the notifications the service worker shows, in the reader's language. The worker has no
 * catalogue (it is one small script): the phone app formats these templates from its catalogue in the chosen
 * language and copies them into IndexedDB (features/mobile/device.ts), with `{name}` left for what only the
 * push brings (the count, the severity, the asset). Until the app has copied them, English.
 */

export interface PushMessage {
  kind: 'alerts' | 'incident';
  title: string;
  severity: 'info' | 'warning' | 'critical';
  alerts?: { alert_id: string; asset_id: string; summary: string }[];
  more?: number;
  incident?: { id: string; asset_id: string; title: string; status: 'open' | 'resolved' };
}

export interface PushTexts {
  /** `{severity}`: one alert, details hidden. */
  alertOne: string;
  /** `{count}`, `{severity}`: two alerts or more, details hidden. */
  alertsMany: string;
  /** `{severity}`: an incident, details hidden. */
  incident: string;
  /** `{asset}`: the body of an incident shown with its details. */
  incidentOn: string;
  /** The body when details are hidden. */
  locked: string;
  /** The severities' names. */
  severities: Record<PushMessage['severity'], string>;
}

export const englishPushTexts: Readonly<PushTexts> = {
  alertOne: 'An alert ({severity})',
  alertsMany: '{count} alerts ({severity})',
  incident: '{severity} incident',
  incidentOn: 'Open incident on {asset}',
  locked: 'Unlock the app to see details',
  severities: { info: 'info', warning: 'warning', critical: 'critical' },
};

const textNames = ['alertOne', 'alertsMany', 'incident', 'incidentOn', 'locked'] as const;
const severityNames = ['info', 'warning', 'critical'] as const;

/** The stored texts, each one that is not a string of at most 200 characters replaced by its English. */
export function readPushTexts(stored: unknown): PushTexts {
  const record = typeof stored === 'object' && stored !== null ? (stored as Record<string, unknown>) : {};
  const text = (value: unknown, fallback: string) =>
    typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : fallback;
  const storedSeverities =
    typeof record.severities === 'object' && record.severities !== null
      ? (record.severities as Record<string, unknown>)
      : {};
  const texts = { ...englishPushTexts, severities: { ...englishPushTexts.severities } };
  for (const name of textNames) texts[name] = text(record[name], englishPushTexts[name]);
  for (const name of severityNames)
    texts.severities[name] = text(storedSeverities[name], englishPushTexts.severities[name]);
  return texts;
}

/** `template` with each `{name}` of `values` filled in; other braces stay as they are. */
function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** The notification's title and body; the details (names, summaries) only when the reader chose to see them. */
export function notificationText(
  message: PushMessage,
  texts: PushTexts,
  showDetails: boolean,
): { title: string; body: string } {
  const severity = texts.severities[message.severity];
  if (message.kind === 'incident' && message.incident) {
    return showDetails
      ? { title: message.incident.title, body: fill(texts.incidentOn, { asset: message.incident.asset_id }) }
      : { title: fill(texts.incident, { severity }), body: texts.locked };
  }
  if (showDetails)
    return { title: message.title, body: (message.alerts ?? []).map((a) => a.summary).join('\n') };
  const count = (message.alerts?.length ?? 0) + (message.more ?? 0);
  const title =
    count === 1
      ? fill(texts.alertOne, { severity })
      : fill(texts.alertsMany, { count: String(count), severity });
  return { title, body: texts.locked };
}
