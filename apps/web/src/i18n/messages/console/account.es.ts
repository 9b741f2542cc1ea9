import type { AreaTranslation } from './en.js';
import type { account as english } from './account.en.js';

export const account: AreaTranslation<typeof english> = {
  'account.title': 'Seguridad de la cuenta',
  'account.signedInAs':
    'Sesión iniciada como {username} ({role}) {method, select, twoFactor {con contraseña y un segundo factor} oidc {a través de su proveedor de identidad} password {con contraseña} other {con {method}}}.',
  'account.twoFactorTitle': 'Inicio de sesión en dos pasos',
  'account.passwordTitle': 'Contraseña',
  'account.oidcPassword': 'Inicia sesión a través de su proveedor de identidad: cambie allí su contraseña.',
  'account.passwordForm': 'Cambiar su contraseña',
  'account.currentPassword': 'Contraseña actual',
  'account.newPassword': 'Nueva contraseña',
  'account.newPasswordHint':
    'Al menos {min} caracteres; una frase de contraseña de varias palabras es buena idea.',
  'account.newPasswordAgain': 'Repita la nueva contraseña',
  'account.mismatch': 'no coincide con la nueva contraseña',
  'account.changing': 'Cambiando…',
  'account.changePassword': 'Cambiar contraseña',
  'account.passwordChanged': 'Contraseña cambiada. Sus otras sesiones han terminado; esta continúa.',
  'account.recoveryTitle': 'Códigos de recuperación',
  'account.recoveryWarning':
    'Guarde estos códigos en un lugar seguro, aparte de su autenticador: cada uno le permite iniciar sesión una vez si pierde el autenticador. Solo se muestran ahora.',
  'account.recoveryFile': 'Códigos de recuperación de svc hub ({host}): cada uno sirve una vez',
  'account.copyCodes': 'Copiar los códigos',
  'account.downloadCodes': 'Descargar los códigos',
  'account.savedCodes': 'Ya los he guardado',
  'account.checking': 'Comprobando…',
  'account.off':
    'El inicio de sesión en dos pasos está {off}. Si se activa, al iniciar sesión también se pide un código de una aplicación de autenticación (cualquier aplicación TOTP).',
  'account.offWord': 'desactivado',
  'account.setUp': 'Configurar el inicio de sesión en dos pasos',
  'account.qrLabel': 'Código QR para su aplicación de autenticación',
  'account.scan': 'Escanee el código QR con su aplicación de autenticación.',
  'account.typeSecret': 'O escriba en ella este secreto: {secret}',
  'account.enterCode':
    'Introduzca el código que muestra la aplicación para activar el inicio de sesión en dos pasos.',
  'account.appCode': 'Código de su aplicación de autenticación',
  'account.turnOn': 'Activar',
  'account.on':
    'El inicio de sesión en dos pasos está {on}: al iniciar sesión se pide un código de su aplicación de autenticación o un código de recuperación.',
  'account.onWord': 'activado',
  'account.newCodes': 'Nuevos códigos de recuperación',
  'account.turnOff': 'Desactivar',
  'account.oldCodesStop': 'Los códigos de recuperación anteriores dejan de funcionar.',
  'account.makeCodes': 'Generar códigos nuevos',
  'account.anyCode': 'Código del autenticador o de recuperación',
  'account.turnOffFull': 'Desactivar el inicio de sesión en dos pasos',
  'account.turnOffTitle': '¿Desactivar el inicio de sesión en dos pasos?',
  'account.turnItOff': 'Desactivarlo',
  'account.turnOffText':
    'Entonces para iniciar sesión solo hará falta su contraseña. Sus códigos de recuperación dejan de funcionar.',
  'account.loading2fa': 'Cargando el inicio de sesión en dos pasos',
};
