import type { AreaTranslation } from './en.js';
import type { settings as english } from './settings.en.js';

export const settings: AreaTranslation<typeof english> = {
  'settings.title': 'Einstellungen',
  'settings.loading': 'Einstellungen werden geladen',
  'settings.intro':
    'Ein hier gesetzter Wert hat Vorrang vor der Umgebung, die Vorrang vor dem Standard hat. Richtlinien gelten sofort; beim Start gelesene Einstellungen warten auf einen Neustart.',
  'settings.domain':
    '{domain, select, enrollment {Registrierung} connectors {Konnektoren} retention {Aufbewahrung} runtime {Laufzeit und Richtlinien} notifications {Benachrichtigungen} other {{domain}}}',
  'settings.domainLower':
    '{domain, select, enrollment {Registrierung} connectors {Konnektoren} retention {Aufbewahrung} runtime {Laufzeit und Richtlinien} notifications {Benachrichtigungen} other {{domain}}}',
  'settings.domainAbout':
    '{domain, select, enrollment {Agent-Einrichtung: Standardwerte neuer Registrierungstokens.} connectors {Verhalten der Kollektoren: Standardwerte der Diensterkennung, die Agents beim Verbinden erhalten.} retention {Wie lange der Verlauf aufbewahrt wird.} runtime {Standardverhalten, Richtlinienschalter und Ratenbegrenzungen.} notifications {Weiterleitung und Eskalation von Alarmen.} other {{domain}}}',
  'settings.domainForm': 'Einstellungen: {domain}',
  'settings.editDomain': 'Einstellungen bearbeiten: {domain}',
  'settings.saveDomain': 'Speichern: {domain}',
  'settings.column': '{column, select, setting {Einstellung} value {Wert} other {Quelle}}',
  'settings.source': '{source, select, api {API} env {Umgebung} other {Standard}}',
  'settings.envVar': 'Umgebungsvariable {name}',
  'settings.switch': '{on, select, yes {an} other {aus}}',
  'settings.hint':
    'Standard {value}{env, select, none {} other {, Umgebung {env}}}{restart, select, yes {; gilt nach einem Neustart} other {}}.',
  'settings.clear':
    'API-Wert entfernen (dann gilt {env, select, yes {Umgebung oder Standard} other {der Standard}})',
  'settings.restartToApply': 'gilt nach Neustart',
  'settings.restartToApplyTitle': 'Beim Start gelesen: eine Änderung gilt nach einem Neustart',
  'settings.waitsRestart': 'wartet auf einen Neustart',
  'settings.saved': 'Gespeichert: {changed}.',
  'settings.savedNothing': 'Gespeichert, ohne Änderung.',
  'settings.appliesAfterRestart': '{keys} {n, plural, one {gilt} other {gelten}} nach einem Neustart.',
  'settings.restart': 'Neustart',
  'settings.pending':
    '{n, plural, one {Eine Einstellung wartet} other {# Einstellungen warten}} auf einen Neustart: {keys}.',
  'settings.noPending': 'Keine Einstellung wartet auf einen Neustart.',
  'settings.restarting': 'Der Hub startet neu; warten, bis er wieder antwortet…',
  'settings.back': 'Der Hub wurde neu gestartet und antwortet wieder.',
  'settings.restartHub': 'Hub neu starten',
  'settings.restartTitle': 'Hub neu starten?',
  'settings.restartNow': 'Jetzt neu starten',
  'settings.restartText':
    'Der Hub ist für einige Sekunden nicht erreichbar: Agents verbinden sich neu, laufende Befehle werden abgebrochen, und beim Start gelesene Einstellungen übernehmen ihre neuen Werte.',
  'settings.noAnswer':
    'Der Hub hat innerhalb von {seconds} s nicht wieder geantwortet. Prüfen Sie sein Log und laden Sie dann neu.',
};
