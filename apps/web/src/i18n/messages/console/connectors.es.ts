import type { AreaTranslation } from './en.js';
import type { connectors as english } from './connectors.en.js';

export const connectors: AreaTranslation<typeof english> = {
  'connectors.count': '{n, plural, one {# conector} other {# conectores}}',
  'connectors.new': 'Nuevo conector',
  'connectors.add': 'Añadir conector',
  'connectors.loading': 'Cargando conectores',
  'connectors.none': 'Aún no hay conectores',
  'connectors.noneText':
    'Un conector permite al hub leer y controlar Proxmox VE, Proxmox Backup Server y otros planos de control.',
  'connectors.name': 'Nombre',
  'connectors.kind': 'Tipo',
  'connectors.url': 'URL',
  'connectors.certificate': 'Certificado',
  'connectors.healthColumn': 'Estado',
  'connectors.health': '{health, select, ok {ok} error {error} other {desconocido}}',
  'connectors.assets': 'Activos',
  'connectors.lastError': 'Último error',
  'connectors.lastChecked': 'Última comprobación',
  'connectors.disabled': '(desactivado)',
  'connectors.insecureTitle': 'No se comprueba el certificado del servidor remoto',
  'connectors.insecureBadge': 'Inseguro: sin verificar',
  'connectors.tlsMode':
    '{mode, select, system {Almacén de CA del sistema} pinned_ca {Certificado de CA fijado} fingerprint {Huella del certificado (SHA-256)} other {Omitir la verificación (inseguro)}}',
  'connectors.check': 'Comprobar ahora',
  'connectors.checkNamed': 'Comprobar {name} ahora',
  'connectors.checking': 'Comprobando…',
  'connectors.checkOk': '{n, plural, one {OK, # activo} other {OK, # activos}}',
  'connectors.checkFailed': 'Error: {error}',
  'connectors.removeTitle': '¿Quitar {name}?',
  'connectors.remove': 'Quitar el conector',
  'connectors.removeText':
    '{n, plural, one {El # activo que trajo se elimina con él.} other {Los # activos que trajo se eliminan con él.}}',
  'connectors.baseUrl': 'URL base',
  'connectors.baseUrlHint': 'Esquema, host y puerto, p. ej. {example}',
  'connectors.credentials': 'Credenciales',
  'connectors.credentialsKept': 'Déjalo vacío para conservar las credenciales guardadas (nunca se muestran).',
  'connectors.credentialsHint':
    '{kind, select, virt {Token de API como USER@REALM!TOKENID=SECRET} backup {Token de API como USER@REALM!TOKENID:SECRET (dos puntos antes del secreto)} nas {Clave de API} stacks {Clave de API (ptr_…)} other {Token de acceso de larga duración}}',
  'connectors.username': 'Usuario',
  'connectors.tlsCheck': 'Comprobación del certificado',
  'connectors.insecureWarning':
    'El hub no comprobará quién responde: cualquiera en el camino puede leer las credenciales.',
  'connectors.caPem': 'Certificado de la CA (PEM)',
  'connectors.fingerprint': 'Huella SHA-256',
  'connectors.enabled': 'Activado',
};
