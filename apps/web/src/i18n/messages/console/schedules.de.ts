import type { AreaTranslation } from './en.js';
import type { schedules as english } from './schedules.en.js';

export const schedules: AreaTranslation<typeof english> = {
  'schedules.title': 'Zeitpläne',
  'schedules.new': 'Neuer Zeitplan',
  'schedules.inMaintenance': 'Assets sind in einem Wartungsfenster: dafür markierte Zeitpläne können laufen',
  'schedules.loading': 'Zeitpläne werden geladen',
  'schedules.none': 'Noch keine Zeitpläne',
  'schedules.noneText':
    'Ein Zeitplan führt einen Befehl oder eine gespeicherte Aktion selbstständig zu den angegebenen Zeiten aus.',
  'schedules.column':
    '{column, select, name {Name} when {Wann} runs {Führt aus} next {Nächster Lauf} other {Letzter Lauf}}',
  'schedules.windowOnly': 'nur im Wartungsfenster',
  'schedules.windowOnlyTitle': 'Läuft nur innerhalb eines Wartungsfensters',
  'schedules.savedAction': 'gespeicherte Aktion {id}',
  'schedules.paused': 'pausiert',
  'schedules.noNextRun': 'keiner',
  'schedules.history': 'Verlauf',
  'schedules.historyOf': 'Verlauf von {name}',
  'schedules.toggle': '{enabled, select, yes {Pausieren} other {Fortsetzen}}',
  'schedules.toggleNamed': '{name} {enabled, select, yes {pausieren} other {fortsetzen}}',
  'schedules.deleteTitle': '{name} löschen?',
  'schedules.deleteText': 'Der Zeitplan endet, und sein Laufverlauf wird mit ihm gelöscht.',
  'schedules.save': 'Zeitplan speichern',
  'schedules.name': 'Name',
  'schedules.cron': 'Cron-Ausdruck',
  'schedules.cronHint': 'Minute Stunde Tag Monat Wochentag; ein sechstes Feld vorne für Sekunden',
  'schedules.timezone': 'Zeitzone',
  'schedules.onlyInWindow':
    'Nur innerhalb eines Wartungsfensters (ein Zeitpunkt außerhalb wird übersprungen)',
  'schedules.runs': 'Führt aus',
  'schedules.runsCommand': 'Einen Befehl',
  'schedules.runsAction': 'Eine gespeicherte Aktion',
  'schedules.command': 'Befehl',
  'schedules.action': 'Gespeicherte Aktion',
  'schedules.chooseAction': 'Aktion wählen',
  'schedules.actionTargets': 'Auf den eigenen Zielen der Aktion',
  'schedules.runsOf': 'Läufe von {name}',
  'schedules.runsTable': 'Läufe',
  'schedules.loadingRuns': 'Läufe werden geladen',
  'schedules.noRuns': 'Noch keine Läufe',
  'schedules.runColumn': '{column, select, tick {Zeitpunkt} status {Status} targets {Ziele} other {Hinweis}}',
  'schedules.runStatus':
    '{status, select, running {läuft} completed {abgeschlossen} missed {verpasst} interrupted {unterbrochen} failed {fehlgeschlagen} refused {abgelehnt} skipped {übersprungen} other {{status}}}',
  'schedules.missed': '{n, plural, one {# Zeitpunkt verpasst} other {# Zeitpunkte verpasst}}',
  'schedules.okOf': '{ok} OK von {total}',
};
