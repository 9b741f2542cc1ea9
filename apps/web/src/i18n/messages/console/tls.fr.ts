import type { AreaTranslation } from './en.js';
import type { tls as english } from './tls.en.js';

export const tls: AreaTranslation<typeof english> = {
  'tls.title': 'TLS',
  'tls.loading': 'Chargement de l’état TLS',
  'tls.source': 'Source',
  'tls.sourceText':
    '{source, select, builtin {Intégrée : l’AC propre du hub signe son certificat et le renouvelle} external {Déploiement : fichiers de certificat désignés par SVC_TLS_CERT et SVC_TLS_KEY} uploaded {Remplacement téléversé : l’emporte sur la source du déploiement jusqu’à ce qu’il soit retiré} other {Désactivé : HTTP en clair (seulement derrière un proxy TLS ou en loopback)}}',
  'tls.mode': 'Mode (au démarrage)',
  'tls.renews': 'Renouvellement',
  'tls.notAutomatically': 'pas automatiquement',
  'tls.overrideUploaded': 'Remplacement téléversé',
  'tls.serverCertificate': 'Certificat du serveur',
  'tls.authority': 'Autorité de certification',
  'tls.plainHttp': 'Aucun : le hub sert du HTTP en clair.',
  'tls.downloadCa': 'Télécharger le certificat de l’AC',
  'tls.subject': 'Sujet',
  'tls.issuer': 'Émetteur',
  'tls.validFrom': 'Valide à partir du',
  'tls.expires': 'Expire',
  'tls.fingerprint': 'Empreinte (SHA-256)',
  'tls.names': 'Noms',
  'tls.uploadTitle': 'Téléverser un certificat',
  'tls.chain': 'Chaîne de certificats (PEM)',
  'tls.chainHint': 'D’abord le certificat du serveur, puis ses intermédiaires.',
  'tls.chainFile': 'Ou lire la chaîne depuis un fichier',
  'tls.key': 'Clé privée (PEM)',
  'tls.keyHint': 'Correspondant au certificat ; stockée chiffrée et jamais réaffichée.',
  'tls.keyFile': 'Ou lire la clé depuis un fichier',
  'tls.uploaded': 'Le hub sert désormais le certificat téléversé.',
  'tls.upload': 'Téléverser le certificat',
  'tls.uploadConfirmTitle': 'Servir le certificat téléversé ?',
  'tls.uploadConfirm': 'Le téléverser et le servir',
  'tls.uploadText':
    'Le hub le sert aussitôt aux nouvelles connexions, à la place de la source {source}, jusqu’au retrait du remplacement.',
  'tls.uploadPinned':
    'Les agents qui ont épinglé l’AC du hub doivent pouvoir vérifier le nouveau certificat (une AC publique en laquelle ils ont confiance, ou un certificat émis par l’AC du hub), sinon ils ne pourront pas se reconnecter.',
  'tls.clear': 'Retirer le remplacement',
  'tls.clearTitle': 'Retirer le certificat téléversé ?',
  'tls.clearConfirm': 'Retirer le remplacement',
  'tls.clearText':
    'Le hub sert de nouveau sa source de démarrage (intégrée ou les fichiers du déploiement) aux nouvelles connexions.',
};
