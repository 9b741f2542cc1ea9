import type { AreaTranslation } from './en.js';
import type { connectors as english } from './connectors.en.js';

export const connectors: AreaTranslation<typeof english> = {
  'connectors.count': '{n, plural, one {# connecteur} other {# connecteurs}}',
  'connectors.new': 'Nouveau connecteur',
  'connectors.add': 'Ajouter le connecteur',
  'connectors.loading': 'Chargement des connecteurs',
  'connectors.none': 'Aucun connecteur pour l’instant',
  'connectors.noneText':
    'Un connecteur permet au hub de lire et de piloter Proxmox VE, Proxmox Backup Server et d’autres plans de contrôle.',
  'connectors.name': 'Nom',
  'connectors.kind': 'Type',
  'connectors.url': 'URL',
  'connectors.certificate': 'Certificat',
  'connectors.healthColumn': 'Santé',
  'connectors.health': '{health, select, ok {ok} error {erreur} other {inconnu}}',
  'connectors.assets': 'Actifs',
  'connectors.lastError': 'Dernière erreur',
  'connectors.lastChecked': 'Dernière vérification',
  'connectors.disabled': '(désactivé)',
  'connectors.insecureTitle': 'Le certificat du serveur distant n’est pas vérifié',
  'connectors.insecureBadge': 'Non sûr : non vérifié',
  'connectors.tlsMode':
    '{mode, select, system {Magasin d’AC du système} pinned_ca {Certificat d’AC épinglé} fingerprint {Empreinte du certificat (SHA-256)} other {Ignorer la vérification (non sûr)}}',
  'connectors.check': 'Vérifier maintenant',
  'connectors.checkNamed': 'Vérifier {name} maintenant',
  'connectors.checking': 'Vérification…',
  'connectors.checkOk': '{n, plural, one {OK, # actif} other {OK, # actifs}}',
  'connectors.checkFailed': 'Échec : {error}',
  'connectors.removeTitle': 'Retirer {name} ?',
  'connectors.remove': 'Retirer le connecteur',
  'connectors.removeText':
    '{n, plural, one {# actif apporté par ce connecteur est retiré avec lui.} other {# actifs apportés par ce connecteur sont retirés avec lui.}}',
  'connectors.baseUrl': 'URL de base',
  'connectors.baseUrlHint': 'Schéma, hôte et port, p. ex. {example}',
  'connectors.credentials': 'Identifiants',
  'connectors.credentialsKept': 'Laisser vide pour garder les identifiants enregistrés (jamais affichés).',
  'connectors.credentialsHint':
    '{kind, select, virt {Jeton d’API sous la forme USER@REALM!TOKENID=SECRET} backup {Jeton d’API sous la forme USER@REALM!TOKENID:SECRET (deux-points avant le secret)} nas {Clé d’API} stacks {Clé d’API (ptr_…)} other {Jeton d’accès longue durée}}',
  'connectors.username': 'Nom d’utilisateur',
  'connectors.tlsCheck': 'Vérification du certificat',
  'connectors.insecureWarning':
    'Le hub ne vérifiera pas qui répond : n’importe qui sur le chemin peut lire les identifiants.',
  'connectors.caPem': 'Certificat de l’AC (PEM)',
  'connectors.fingerprint': 'Empreinte SHA-256',
  'connectors.enabled': 'Activé',
};
