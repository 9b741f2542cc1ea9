import type { AreaTranslation } from './en.js';
import type { tls as english } from './tls.en.js';

export const tls: AreaTranslation<typeof english> = {
  'tls.title': 'TLS',
  'tls.loading': 'Cargando el estado de TLS',
  'tls.source': 'Origen',
  'tls.sourceText':
    '{source, select, builtin {Integrado: la CA propia del hub firma su certificado y lo renueva} external {Despliegue: archivos de certificado indicados por SVC_TLS_CERT y SVC_TLS_KEY} uploaded {Sustitución subida: prevalece sobre el origen del despliegue hasta que se quite} other {Desactivado: HTTP sin cifrar (solo detrás de un proxy TLS o en loopback)}}',
  'tls.mode': 'Modo (al arrancar)',
  'tls.renews': 'Se renueva',
  'tls.notAutomatically': 'no automáticamente',
  'tls.overrideUploaded': 'Sustitución subida',
  'tls.serverCertificate': 'Certificado del servidor',
  'tls.authority': 'Autoridad de certificación',
  'tls.plainHttp': 'Ninguno: el hub sirve HTTP sin cifrar.',
  'tls.downloadCa': 'Descargar el certificado de la CA',
  'tls.subject': 'Sujeto',
  'tls.issuer': 'Emisor',
  'tls.validFrom': 'Válido desde',
  'tls.expires': 'Caduca',
  'tls.fingerprint': 'Huella (SHA-256)',
  'tls.names': 'Nombres',
  'tls.uploadTitle': 'Subir un certificado',
  'tls.chain': 'Cadena de certificados (PEM)',
  'tls.chainHint': 'Primero el certificado del servidor y luego sus intermedios.',
  'tls.chainFile': 'O leer la cadena de un archivo',
  'tls.key': 'Clave privada (PEM)',
  'tls.keyHint': 'La que corresponde al certificado; se guarda cifrada y no se vuelve a mostrar.',
  'tls.keyFile': 'O leer la clave de un archivo',
  'tls.uploaded': 'El hub sirve ahora el certificado subido.',
  'tls.upload': 'Subir el certificado',
  'tls.uploadConfirmTitle': '¿Servir el certificado subido?',
  'tls.uploadConfirm': 'Subirlo y servirlo',
  'tls.uploadText':
    'El hub lo sirve de inmediato a las nuevas conexiones, en lugar del origen {source}, hasta que se quite la sustitución.',
  'tls.uploadPinned':
    'Los agentes que fijaron la CA del hub deben poder verificar el nuevo certificado (una CA pública en la que confíen o uno emitido por la CA del hub); si no, no podrán reconectarse.',
  'tls.clear': 'Quitar la sustitución',
  'tls.clearTitle': '¿Quitar el certificado subido?',
  'tls.clearConfirm': 'Quitar la sustitución',
  'tls.clearText':
    'El hub vuelve a servir su origen de arranque (integrado o los archivos del despliegue) a las nuevas conexiones.',
};
