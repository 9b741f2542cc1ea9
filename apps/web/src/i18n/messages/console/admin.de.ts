import type { AreaTranslation } from './en.js';
import type { admin as english } from './admin.en.js';

export const admin: AreaTranslation<typeof english> = {
  'admin.title': 'Verwaltung',
  'admin.nav': 'Verwaltung',
  'admin.section':
    '{section, select, keys {API-Schlüssel} users {Benutzer} enrollment {Registrierung} tls {TLS} tailscale {Tailscale} prometheus {Prometheus} settings {Einstellungen} audit {Audit-Protokoll} other {Hub-Status}}',
  'admin.onlyTitle': 'Nur für Administratoren',
  'admin.onlyText':
    'Dieser Bereich ist für Administratoren. Sie sind als {username} mit der Rolle {role} angemeldet, und der Hub lehnt seine Anfragen für Sie ab.',
  'admin.toDashboard': 'Zum Dashboard',
  'admin.missing': 'Diese Verwaltungsseite gibt es nicht',
  'admin.toKeys': 'Zu den API-Schlüsseln',
};
