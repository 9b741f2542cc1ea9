import type { AreaTranslation } from './en.js';
import type { admin as english } from './admin.en.js';

export const admin: AreaTranslation<typeof english> = {
  'admin.title': 'Administration',
  'admin.nav': 'Administration',
  'admin.section':
    '{section, select, keys {Clés d’API} users {Utilisateurs} enrollment {Inscription} tls {TLS} tailscale {Tailscale} prometheus {Prometheus} settings {Paramètres} audit {Journal d’audit} other {État du hub}}',
  'admin.onlyTitle': 'Réservé aux administrateurs',
  'admin.onlyText':
    'Cet espace est réservé aux administrateurs. Vous êtes connecté en tant que {username} avec le rôle {role}, et le hub refuse vos requêtes ici.',
  'admin.toDashboard': 'Aller au tableau de bord',
  'admin.missing': 'Cette page d’administration n’existe pas',
  'admin.toKeys': 'Aller aux clés d’API',
};
