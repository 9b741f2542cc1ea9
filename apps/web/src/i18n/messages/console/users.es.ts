import type { AreaTranslation } from './en.js';
import type { users as english } from './users.en.js';

export const users: AreaTranslation<typeof english> = {
  'users.title': 'Usuarios',
  'users.add': 'Añadir usuario',
  'users.addTitle': 'Añadir un usuario',
  'users.adding': 'Añadiendo…',
  'users.username': 'Nombre de usuario',
  'users.usernameHint': 'Letras, dígitos y . _ @ -',
  'users.password': 'Contraseña',
  'users.passwordHint': 'Al menos {min} caracteres; comuníquesela al usuario por un canal seguro.',
  'users.role': 'Rol',
  'users.roleDescription':
    '{role, select, owner {todo; reservado a la cuenta creada en el primer arranque (acceso de emergencia)} admin {todo salvo los derechos reservados al propietario: claves, usuarios, ajustes, TLS, registro} operator {consulta y opera la flota: comandos, archivos, servicios, energía; sin administración} other {solo lectura: se rechaza todo cambio}}',
  'users.changeRoleTitle': 'Cambiar el rol de {name}',
  'users.resetTitle': 'Restablecer la contraseña de {name}',
  'users.changeRole': 'Cambiar rol',
  'users.resetPassword': 'Restablecer contraseña',
  'users.changeRoleNamed': 'Cambiar el rol de {name}',
  'users.resetPasswordNamed': 'Restablecer la contraseña de {name}',
  'users.roleHint':
    '{description}. Las sesiones del usuario terminan: vuelve a iniciar sesión con el nuevo rol.',
  'users.newPassword': 'Nueva contraseña',
  'users.newPasswordHint': 'Las sesiones del usuario terminan; inicia sesión con esta contraseña.',
  'users.removalTitle':
    '{kind, select, disable {¿Desactivar a {name}?} enable {¿Activar a {name}?} other {¿Eliminar a {name}?}}',
  'users.removalConfirm':
    '{kind, select, disable {Desactivar usuario} enable {Activar usuario} other {Eliminar usuario}}',
  'users.enableText':
    '{name} puede volver a iniciar sesión. Sus claves de API vuelven a funcionar y las programaciones que se ejecutan en su nombre vuelven a ejecutarse desde su próximo ciclo.',
  'users.disableSignIn': '{name} no puede iniciar sesión; todas sus sesiones de consola terminan ahora.',
  'users.disableKeys': 'Sus claves de API responden 401 hasta que se reactive (las claves se conservan).',
  'users.disableSchedules':
    'Las programaciones que se ejecutan en su nombre se rechazan en cada ciclo, con el motivo, hasta entonces.',
  'users.deleteAccount':
    'La cuenta de {name}, sus sesiones de consola, claves de API, llaves de acceso del móvil y suscripciones push, y sus fragmentos y marcadores personales de terminal se eliminan definitivamente.',
  'users.deleteShared':
    'Sus fragmentos compartidos se quedan para los demás: pasan al usuario elegido abajo o, si no, quedan bajo el id de {name}, editables por los administradores.',
  'users.deleteAudit': 'El registro de auditoría conserva todo lo que hizo, con su id y su nombre.',
  'users.deleteSchedules':
    'Si hay programaciones que se ejecutan como {name}, la eliminación se rechaza salvo que elija quién las ejecuta a partir de ahora (nunca con más derechos de los que tenía {name}).',
  'users.deleteSso':
    'Una cuenta creada por inicio de sesión único se vuelve a crear, vacía, si {name} inicia sesión allí de nuevo: para impedírselo, desactívela o elimínela en el proveedor de identidad.',
  'users.heir': 'Las programaciones y los fragmentos compartidos pasan a',
  'users.nobody': 'nadie: rechazar si hay programaciones en su nombre',
  'users.heirOption': '{name} ({role})',
  'users.loading': 'Cargando los usuarios',
  'users.none': 'No hay usuarios',
  'users.column':
    '{column, select, username {Nombre de usuario} role {Rol} created {Creado} other {Modificado}}',
  'users.you': 'usted',
  'users.disabled': 'desactivado',
  'users.toggle': '{kind, select, disable {Desactivar} other {Activar}}',
  'users.toggleNamed': '{kind, select, disable {Desactivar a {name}} other {Activar a {name}}}',
  'users.roles': 'Roles',
  'users.ownAccount': 'Su propia contraseña y su inicio de sesión en dos pasos están en {link}.',
  'users.ownAccountLink': 'su cuenta',
};
