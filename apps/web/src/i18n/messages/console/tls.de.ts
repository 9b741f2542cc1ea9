import type { AreaTranslation } from './en.js';
import type { tls as english } from './tls.en.js';

export const tls: AreaTranslation<typeof english> = {
  'tls.title': 'TLS',
  'tls.loading': 'TLS-Status wird geladen',
  'tls.source': 'Quelle',
  'tls.sourceText':
    '{source, select, builtin {Eingebaut: die eigene CA des Hubs signiert sein Zertifikat und erneuert es} external {Deployment: Zertifikatsdateien aus SVC_TLS_CERT und SVC_TLS_KEY} uploaded {Hochgeladene Überschreibung: hat Vorrang vor der Quelle des Deployments, bis sie entfernt wird} other {Deaktiviert: einfaches HTTP (nur hinter einem TLS-Proxy oder auf Loopback)}}',
  'tls.mode': 'Modus (beim Start)',
  'tls.renews': 'Erneuert',
  'tls.notAutomatically': 'nicht automatisch',
  'tls.overrideUploaded': 'Überschreibung hochgeladen',
  'tls.serverCertificate': 'Serverzertifikat',
  'tls.authority': 'Zertifizierungsstelle',
  'tls.plainHttp': 'Keines: der Hub liefert einfaches HTTP aus.',
  'tls.downloadCa': 'CA-Zertifikat herunterladen',
  'tls.subject': 'Inhaber',
  'tls.issuer': 'Aussteller',
  'tls.validFrom': 'Gültig ab',
  'tls.expires': 'Läuft ab',
  'tls.fingerprint': 'Fingerabdruck (SHA-256)',
  'tls.names': 'Namen',
  'tls.uploadTitle': 'Zertifikat hochladen',
  'tls.chain': 'Zertifikatskette (PEM)',
  'tls.chainHint': 'Zuerst das Serverzertifikat, dann seine Zwischenzertifikate.',
  'tls.chainFile': 'Oder die Kette aus einer Datei lesen',
  'tls.key': 'Privater Schlüssel (PEM)',
  'tls.keyHint': 'Passend zum Zertifikat; verschlüsselt gespeichert und nie wieder angezeigt.',
  'tls.keyFile': 'Oder den Schlüssel aus einer Datei lesen',
  'tls.uploaded': 'Der Hub verwendet jetzt das hochgeladene Zertifikat.',
  'tls.upload': 'Zertifikat hochladen',
  'tls.uploadConfirmTitle': 'Das hochgeladene Zertifikat verwenden?',
  'tls.uploadConfirm': 'Hochladen und verwenden',
  'tls.uploadText':
    'Der Hub verwendet es sofort für neue Verbindungen statt der Quelle {source}, bis die Überschreibung entfernt wird.',
  'tls.uploadPinned':
    'Agenten, die die CA des Hubs festgelegt haben, müssen das neue Zertifikat prüfen können (eine öffentliche CA, der sie vertrauen, oder eines, das die CA des Hubs ausgestellt hat), sonst können sie sich nicht wieder verbinden.',
  'tls.clear': 'Überschreibung entfernen',
  'tls.clearTitle': 'Das hochgeladene Zertifikat entfernen?',
  'tls.clearConfirm': 'Überschreibung entfernen',
  'tls.clearText':
    'Der Hub verwendet für neue Verbindungen wieder seine Startquelle (eingebaut oder die Dateien des Deployments).',
};
