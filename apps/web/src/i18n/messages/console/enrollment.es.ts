import type { AreaTranslation } from './en.js';
import type { enrollment as english } from './enrollment.en.js';

export const enrollment: AreaTranslation<typeof english> = {
  'enrollment.state':
    '{state, select, revoked {revocado} usedUp {agotado} expired {caducado} other {activo}}',
  'enrollment.createTitle': 'Crear un token de registro',
  'enrollment.create': 'Crear token',
  'enrollment.creating': 'Creando…',
  'enrollment.name': 'Nombre',
  'enrollment.nameHint': 'Para qué es: una máquina, un lote, un sitio.',
  'enrollment.lifetime': 'Duración en horas',
  'enrollment.lifetimeHint': 'Vacío: el valor por defecto del hub (ajuste {setting}).',
  'enrollment.uses': 'Registros permitidos',
  'enrollment.usesHint': 'Vacío: el valor por defecto del hub (ajuste {setting}).',
  'enrollment.createdTitle': 'Token {name} creado',
  'enrollment.shownOnce':
    'El token solo se muestra esta vez. Permite {uses, plural, one {# registro} other {# registros}} hasta {until}.',
  'enrollment.command': 'Comando de registro',
  'enrollment.runOwnCa':
    'Ejecútelo en la máquina (con svc-agent instalado) y después {run}. {flag} fija la CA propia del hub, así el agente confía en este hub y en ningún otro.',
  'enrollment.runSystemCa':
    'El certificado de este hub no procede de su propia CA: el agente lo comprueba con las CA del sistema de la máquina.',
  'enrollment.token': 'Token',
  'enrollment.done': 'Hecho',
  'enrollment.title': 'Tokens de registro',
  'enrollment.intro':
    'Una máquina se une al hub una vez con un token: {command} lo cambia por su propia credencial. Los tokens caducan y permiten un número fijo de registros.',
  'enrollment.loading': 'Cargando los tokens de registro',
  'enrollment.none': 'Ningún token de registro',
  'enrollment.noneText': 'Cree uno para añadir una máquina con un agente.',
  'enrollment.stateHeader': 'Estado',
  'enrollment.used': 'Usado',
  'enrollment.expires': 'Caduca',
  'enrollment.created': 'Creado',
  'enrollment.usedOf': '{uses} de {max}',
  'enrollment.revoke': 'Revocar',
  'enrollment.revokeNamed': 'Revocar {name}',
  'enrollment.revokeTitle': '¿Revocar el token {name}?',
  'enrollment.revokeToken': 'Revocar token',
  'enrollment.revokeText':
    'Ninguna máquina podrá registrarse con él. Las máquinas que se registraron con él conservan sus propias credenciales.',
};
