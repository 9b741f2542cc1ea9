import type { AreaTranslation } from './en.js';
import type { updates as english } from './updates.en.js';

export const updates: AreaTranslation<typeof english> = {
  'updates.title': 'Mises à jour',
  'updates.sections': 'Sections des mises à jour',
  'updates.tab': '{tab, select, machines {Machines} runs {Exécutions} other {Nouvelle exécution}}',
  'updates.machineCount': '{n, plural, one {# machine} other {# machines}}',
  'updates.runCount': '{n, plural, one {# exécution} other {# exécutions}}',
  'updates.newRun': 'Nouvelle exécution de mises à jour',
  'updates.notSupported': 'non pris en charge',
  'updates.notReported': 'pas encore signalé',
  'updates.filters': 'Filtrer les machines',
  'updates.show': 'Afficher',
  'updates.allMachines': 'Toutes les machines',
  'updates.need':
    '{need, select, needs {Ont besoin de mises à jour} other {Ont besoin de mises à jour de sécurité}}',
  'updates.group': 'Groupe',
  'updates.anyGroup': 'Tous les groupes',
  'updates.refreshed':
    '{name} signale {n, plural, =0 {aucune mise à jour} one {# mise à jour} other {# mises à jour}}.',
  'updates.loadingFleet': 'Chargement des mises à jour des machines',
  'updates.noMachines': 'Aucune machine ici',
  'updates.noMachinesText':
    'Les machines dont l’agent dispose d’un gestionnaire de paquets signalent leurs mises à jour disponibles toutes les quelques heures.',
  'updates.fleetTable': 'Machines et leurs mises à jour',
  'updates.fleetColumn':
    '{column, select, machine {Machine} updates {Mises à jour} security {Sécurité} reboot {Redémarrage} patched {Dernier correctif} other {Dernière vérification}}',
  'updates.reboot': '{required, select, yes {Nécessaire} other {Non}}',
  'updates.checkFailed': 'échec : {error}',
  'updates.refreshNamed': 'Actualiser {name}',
  'updates.refresh': 'Actualiser',
  'updates.runFilters': 'Filtrer les exécutions de mises à jour',
  'updates.status': 'État',
  'updates.anyStatus': 'Tous les états',
  'updates.runStatus':
    '{status, select, scheduled {planifiée} running {en cours} completed {terminée} stopped {arrêtée} cancelled {annulée} failed {échouée} other {{status}}}',
  'updates.modeLabel': 'Mode',
  'updates.anyMode': 'Simulations et installations',
  'updates.mode': '{mode, select, dry_run {Simulation} other {Installation}}',
  'updates.loadingRuns': 'Chargement des exécutions de mises à jour',
  'updates.noRuns': 'Aucune exécution de mises à jour',
  'updates.noRunsText':
    'Une simulation demande au gestionnaire de paquets de chaque machine ce qu’il changerait ; une installation installe.',
  'updates.runsTable': 'Exécutions de mises à jour',
  'updates.runsColumn':
    '{column, select, run {Exécution} updates {Mises à jour} targets {Cibles} status {État} results {Résultats} other {Début}}',
  'updates.selection':
    '{selection, select, all {toutes les mises à jour} security {sécurité uniquement} other {paquets nommés}}',
  'updates.selectionOption':
    '{selection, select, all {Toutes les mises à jour} security {Sécurité uniquement} other {Paquets nommés}}',
  'updates.targets':
    '{group, select, yes {un groupe} other {{n, plural, one {# machine} other {# machines}}}}',
  'updates.count':
    '{n} {status, select, ok {ok} failed {en échec} offline {hors ligne} running {en cours} pending {en attente} skipped {sautées} other {annulées}}',
  'updates.countsOf': '{counts} sur {total}',
  'updates.countsNone': '{total, plural, one {# cible} other {# cibles}}',
  'updates.submit':
    '{start, select, now {{mode, select, apply {Installer les mises à jour} other {Lancer la simulation}}} other {{mode, select, apply {Planifier l’installation} other {Planifier la simulation}}}}',
  'updates.modeOption':
    '{mode, select, dry_run {Simulation (le gestionnaire simule)} other {Installation (installe)}}',
  'updates.selectionLegend': 'Mises à jour',
  'updates.packages': 'Paquets',
  'updates.packagesHint': 'Noms séparés par des espaces, des virgules ou des lignes',
  'updates.refreshFirst': 'Actualiser d’abord les listes de paquets',
  'updates.rebootAfter': 'Redémarrer ensuite une machine qui en a besoin',
  'updates.concurrency': 'Au plus à la fois',
  'updates.maxFailures': 'Arrêter après des échecs',
  'updates.maxFailuresHint': 'Vide : aucune limite',
  'updates.timeout': 'Délai par machine (minutes)',
  'updates.startLegend': 'Début',
  'updates.startOption':
    '{start, select, now {Maintenant} at {À une heure donnée} other {Dans la prochaine fenêtre de maintenance}}',
  'updates.startsAt': 'Commence à',
  'updates.viewerNotice':
    'Votre rôle peut voir les mises à jour du parc, mais pas lancer d’exécutions de mises à jour.',
  'updates.changeColumn': '{column, select, name {Paquet} action {Changement} other {Versions}}',
  'updates.changeAction':
    '{action, select, install {installation} upgrade {mise à niveau} downgrade {rétrogradation} remove {suppression} held {retenu} other {{action}}}',
  'updates.changesOn': '{dry, select, yes {Changements prévus} other {Changements}} sur {name}',
  'updates.nothing': '{dry, select, yes {Rien à changer} other {Rien n’a changé}}',
  'updates.moreChanges': 'plus de changements que le hub n’en conserve',
  'updates.outputOf':
    '{manager, select, none {Sortie du gestionnaire de paquets} other {Sortie de {manager}}}',
  'updates.outputOn': 'Sortie sur {name}',
  'updates.outputEnd': 'seule la fin de la sortie est conservée',
  'updates.loadingResult': 'Chargement du résultat',
  'updates.targetStatus':
    '{status, select, pending {en attente} running {en cours…} ok {ok} failed {en échec} offline {hors ligne} skipped {sautée} other {annulée}}',
  'updates.changes': '{n} {dry, select, yes {prévus} other {effectués}}',
  'updates.exitCode': 'code de sortie {code}',
  'updates.timedOut': 'délai dépassé',
  'updates.rebootRequired': 'redémarrage nécessaire',
  'updates.rebooting': 'redémarrage en cours',
  'updates.updatesOf': 'Mises à jour de {name}',
  'updates.waiting': 'En attente de l’agent…',
  'updates.notRun': 'Non lancée.',
  'updates.facts': 'L’exécution',
  'updates.fact':
    '{fact, select, status {État} results {Résultats} updates {Mises à jour} concurrency {À la fois} reboot {Redémarrer si nécessaire} window {Dans la fenêtre de maintenance à partir de} starts {Début} finished {Terminée} other {Par}}',
  'updates.stopsAfter': ', s’arrête après {n, plural, one {# échec} other {# échecs}}',
  'updates.yesNo': '{value, select, yes {oui} other {non}}',
  'updates.until': 'jusqu’à {time}',
  'updates.loadingRun': 'Chargement de l’exécution de mises à jour',
  'updates.runTitle':
    '{mode, select, dry_run {Simulation} other {Installation}} de {selection, select, all {toutes les mises à jour} security {la sécurité uniquement} other {paquets nommés}}',
  'updates.cancelRun': 'Annuler l’exécution',
  'updates.targetsHeading': 'Cibles',
  'updates.resolvedAtStart': 'Les cibles sont déterminées au début de l’exécution.',
  'updates.noTargets': 'Aucune cible.',
  'updates.cancelTitle': 'Annuler cette exécution de mises à jour ?',
  'updates.cancelText':
    'Aucune nouvelle machine ne commence ; celles qui n’ont pas encore commencé sont annulées. Un gestionnaire de paquets déjà au travail termine, et son résultat est conservé.',
  'updates.packageColumn':
    '{column, select, name {Paquet} current {Installé} new {Disponible} source {Origine} other {Sécurité}}',
  'updates.securityChip': 'sécurité',
  'updates.checking': 'Vérification…',
  'updates.checkNow': 'Vérifier maintenant',
  'updates.moreOptions': 'Plus d’options',
  'updates.statusFacts': 'État des mises à jour',
  'updates.assetFact':
    '{fact, select, available {Mises à jour disponibles} security {Mises à jour de sécurité} reboot {Redémarrage} patched {Dernier correctif} checked {Dernière vérification} other {Gestionnaire de paquets}}',
  'updates.rebootState': '{required, select, yes {Nécessaire} other {Pas nécessaire}}',
  'updates.noManager': 'aucun que le hub sache piloter',
  'updates.lastCheckFailed': 'La dernière vérification a échoué : {error}',
  'updates.available': 'Mises à jour disponibles',
  'updates.loadingAvailable': 'Chargement des mises à jour disponibles',
  'updates.notReportedYet': 'Pas encore signalé',
  'updates.upToDate': 'À jour',
  'updates.noManagerHere': 'Aucun gestionnaire de paquets que le hub sache piloter sur cette machine',
  'updates.applyTitle': 'Installer toutes les mises à jour sur {name} ?',
  'updates.applyText':
    'Le gestionnaire de paquets installe maintenant {known, select, yes {{n, plural, one {# mise à jour} other {# mises à jour}}} other {les mises à jour disponibles}}. La machine n’est pas redémarrée.',
};
