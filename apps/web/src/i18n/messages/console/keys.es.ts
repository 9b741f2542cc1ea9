import type { AreaTranslation } from './en.js';
import type { keys as english } from './keys.en.js';

export const keys: AreaTranslation<typeof english> = {
  'keys.title': 'Claves de API',
  'keys.create': 'Crear clave',
  'keys.intro':
    'Las claves llaman a la API REST ({path}) con un rol, alcances y, opcionalmente, una lista de activos. Solo su prefijo se guarda en claro.',
  'keys.loading': 'Cargando las claves',
  'keys.none': 'No hay claves de API',
  'keys.noneText': 'Cree una para un script, una CLI u otro servicio.',
  'keys.column':
    '{column, select, name {Nombre} key {Clave} role {Rol} scopes {Alcances} assets {Activos} expires {Caduca} lastUsed {Último uso} other {Creada}}',
  'keys.everything': 'todo (*)',
  'keys.assetsAll': 'todos',
  'keys.assetsSome': '{n, plural, one {solo #} other {solo #}}',
  'keys.expired': 'caducada',
  'keys.revoke': 'Revocar',
  'keys.revokeNamed': 'Revocar {name}',
  'keys.revokeTitle': '¿Revocar la clave {name}?',
  'keys.revokeConfirm': 'Revocar clave',
  'keys.revokeText':
    'Toda petición con {prefix} se rechaza a partir de ahora y sus flujos de eventos se cierran. No se puede deshacer.',
  'keys.createdTitle': 'Clave {name} creada',
  'keys.copyNow':
    'Copie la clave ahora: solo se muestra esta vez. El hub guarda solo su hash y no puede volver a mostrarla.',
  'keys.rawLabel': 'Clave de API',
  'keys.sendAs': 'Envíela como {header} por HTTPS.',
  'keys.copied': 'Ya la he copiado',
  'keys.editTitle': 'Editar la clave {name}',
  'keys.createTitle': 'Crear una clave de API',
  'keys.name': 'Nombre',
  'keys.fixedRole': 'Rol: {role}. El rol de una clave no puede cambiar: cree una clave nueva para otro rol.',
  'keys.role': 'Rol',
  'keys.roleHint':
    'Lo máximo que puede hacer la clave; sus alcances lo restringen más. Una clave de lector nunca cambia nada.',
  'keys.expires': 'Caduca',
  'keys.expiresHint': 'Vacío: la clave no caduca.',
  'keys.preset': '{days, select, 365 {1 año} other {{days} días}}',
  'keys.never': 'Nunca',
  'keys.nothingChanged': 'No ha cambiado nada.',
  'keys.scopes': 'Alcances',
  'keys.everythingScope': 'Todo ({star})',
  'keys.readOnly': 'Predefinido de solo lectura',
  'keys.clear': 'Vaciar',
  'keys.familyScopes': 'Alcances de {family}',
  'keys.allowedAssets': 'Activos permitidos',
  'keys.allAssets':
    'Todos los activos, también los que se añadan después. Añada activos para limitar la clave a ellos.',
  'keys.chosenAssets': 'Activos elegidos',
  'keys.findAsset': 'Buscar un activo',
  'keys.findPlaceholder': 'Nombre, nombre de host, dirección',
  'keys.matching': 'Activos que coinciden',
  'keys.add': 'Añadir {name}',
  'keys.noOtherMatch': 'Ningún otro activo coincide con «{query}».',
};
