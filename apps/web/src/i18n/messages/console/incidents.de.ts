import type { AreaTranslation } from './en.js';
import type { incidents as english } from './incidents.en.js';

export const incidents: AreaTranslation<typeof english> = {
  'incidents.filters': 'Vorfälle filtern',
  'incidents.status': 'Status',
  'incidents.anyStatus': 'Jeder Status',
  'incidents.statusValue': '{status, select, open {offen} resolved {behoben} other {{status}}}',
  'incidents.loading': 'Vorfälle werden geladen',
  'incidents.none': 'Keine Vorfälle',
  'incidents.noneText':
    'Ein Vorfall beginnt, wenn der erste Alarm eines Assets auslöst, und sammelt die folgenden Alarme.',
  'incidents.severity': 'Schweregrad',
  'incidents.titleColumn': 'Titel',
  'incidents.opened': 'Geöffnet',
  'incidents.review': 'Nachbetrachtung',
  'incidents.reviewNamed': 'Nachbetrachtung: {title}',
  'incidents.activeOf': '{active} aktiv / {total}',
  'incidents.resolve': 'Beheben',
  'incidents.resolveTitle': 'Vorfall beheben',
  'incidents.resolveText':
    'Seine Alarme bleiben, wie sie sind; der nächste Alarm des Assets eröffnet einen neuen Vorfall.',
  'incidents.reviewTitle': 'Nachbetrachtung des Vorfalls',
  'incidents.all': 'Alle Vorfälle',
  'incidents.export': 'Als Markdown exportieren',
  'incidents.loadingReview': 'Nachbetrachtung wird geladen',
  'incidents.openedAt': '{title} — {status}, geöffnet {opened}',
  'incidents.openedResolved': '{title} — {status}, geöffnet {opened}, behoben {resolved}',
  'incidents.summary': 'Zusammenfassung',
  'incidents.cause': 'Ursache',
  'incidents.followUps': 'Folgemaßnahmen',
  'incidents.noFollowUps': 'Noch keine.',
  'incidents.followUp': 'Folgemaßnahme {n}',
  'incidents.followUpDone': 'Folgemaßnahme {n} erledigt',
  'incidents.removeFollowUp': 'Folgemaßnahme {n} entfernen',
  'incidents.addFollowUp': 'Folgemaßnahme hinzufügen',
  'incidents.saveReview': 'Nachbetrachtung speichern',
  'incidents.saved': 'Gespeichert.',
  'incidents.atMostCharacters': '{max, plural, one {höchstens # Zeichen} other {höchstens # Zeichen}}',
  'incidents.atMostFollowUps':
    '{max, plural, one {höchstens # Folgemaßnahme} other {höchstens # Folgemaßnahmen}}',
  'incidents.followUpEmpty': 'jede Folgemaßnahme braucht einen Text',
  'incidents.followUpTooLong':
    '{max, plural, one {eine Folgemaßnahme hat höchstens # Zeichen} other {eine Folgemaßnahme hat höchstens # Zeichen}}',
  'incidents.timeline': 'Zeitleiste',
  'incidents.source': '{source, select, incident {Vorfall} alert {Alarm} audit {Audit} other {{source}}}',
  'incidents.by': '(von {actor})',
};
