import type { AreaTranslation } from './en.js';
import type { admin as english } from './admin.en.js';

export const admin: AreaTranslation<typeof english> = {
  'admin.title': 'Administración',
  'admin.nav': 'Administración',
  'admin.section':
    '{section, select, keys {Claves de API} users {Usuarios} enrollment {Inscripción} tls {TLS} tailscale {Tailscale} prometheus {Prometheus} settings {Ajustes} audit {Registro de auditoría} other {Estado del hub}}',
  'admin.onlyTitle': 'Solo administradores',
  'admin.onlyText':
    'Esta área es para administradores. Has iniciado sesión como {username} con el rol {role}, y el hub rechaza tus peticiones aquí.',
  'admin.toDashboard': 'Ir al panel',
  'admin.missing': 'No existe esa página de administración',
  'admin.toKeys': 'Ir a las claves de API',
};
