import type { AreaTranslation } from './en.js';
import type { settings as english } from './settings.en.js';

export const settings: AreaTranslation<typeof english> = {
  'settings.title': 'Paramètres',
  'settings.loading': 'Chargement des paramètres',
  'settings.intro':
    'Une valeur définie ici l’emporte sur l’environnement, qui l’emporte sur la valeur par défaut. Les politiques s’appliquent tout de suite ; les paramètres lus au démarrage attendent un redémarrage.',
  'settings.domain':
    '{domain, select, enrollment {Enrôlement} connectors {Connecteurs} retention {Conservation} runtime {Exécution et politiques} notifications {Notifications} other {{domain}}}',
  'settings.domainLower':
    '{domain, select, enrollment {enrôlement} connectors {connecteurs} retention {conservation} runtime {exécution et politiques} notifications {notifications} other {{domain}}}',
  'settings.domainAbout':
    '{domain, select, enrollment {Amorçage des agents : valeurs par défaut des nouveaux jetons d’enrôlement.} connectors {Comportement des collecteurs : valeurs par défaut de la découverte de services envoyées aux agents à leur connexion.} retention {Durée de conservation de l’historique.} runtime {Comportements par défaut, interrupteurs de politique et limites de débit.} notifications {Acheminement et escalade des alertes.} other {{domain}}}',
  'settings.domainForm': 'Paramètres : {domain}',
  'settings.editDomain': 'Modifier les paramètres : {domain}',
  'settings.saveDomain': 'Enregistrer : {domain}',
  'settings.column': '{column, select, setting {Paramètre} value {Valeur} other {Source}}',
  'settings.source': '{source, select, api {API} env {environnement} other {par défaut}}',
  'settings.envVar': 'variable d’environnement {name}',
  'settings.switch': '{on, select, yes {activé} other {désactivé}}',
  'settings.hint':
    'Par défaut : {value}{env, select, none {} other {, environnement {env}}}{restart, select, yes { ; appliqué au redémarrage} other {}}.',
  'settings.clear':
    'Effacer la valeur de l’API ({env, select, yes {l’environnement ou la valeur par défaut s’applique} other {la valeur par défaut s’applique}})',
  'settings.restartToApply': 'redémarrer pour appliquer',
  'settings.restartToApplyTitle': 'Lu au démarrage : un changement s’applique après un redémarrage',
  'settings.waitsRestart': 'attend un redémarrage',
  'settings.saved': 'Enregistré : {changed}.',
  'settings.savedNothing': 'Enregistré sans changement.',
  'settings.appliesAfterRestart':
    '{keys} {n, plural, one {s’applique} other {s’appliquent}} après un redémarrage.',
  'settings.restart': 'Redémarrage',
  'settings.pending':
    '{n, plural, one {Un paramètre attend} other {# paramètres attendent}} un redémarrage : {keys}.',
  'settings.noPending': 'Aucun paramètre n’attend de redémarrage.',
  'settings.restarting': 'Le hub redémarre ; en attente de sa réponse…',
  'settings.back': 'Le hub a redémarré et répond de nouveau.',
  'settings.restartHub': 'Redémarrer le hub',
  'settings.restartTitle': 'Redémarrer le hub ?',
  'settings.restartNow': 'Redémarrer maintenant',
  'settings.restartText':
    'Le hub cesse de répondre quelques secondes : les agents se reconnectent, les commandes en cours sont coupées et les paramètres lus au démarrage prennent leurs nouvelles valeurs.',
  'settings.noAnswer':
    'Le hub n’a pas répondu de nouveau en {seconds} s. Consultez son journal, puis rechargez.',
};
