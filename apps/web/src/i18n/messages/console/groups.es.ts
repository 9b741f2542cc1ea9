import type { AreaTranslation } from './en.js';
import type { groups as english } from './groups.en.js';

export const groups: AreaTranslation<typeof english> = {
  'groups.title': 'Grupos',
  'groups.count': '{n, plural, one {# grupo} other {# grupos}}',
  'groups.new': 'Nuevo grupo',
  'groups.loading': 'Cargando los grupos',
  'groups.none': 'Aún no hay grupos',
  'groups.noneText':
    'Un grupo reúne activos para ejecutar un comando en ellos o para filtrar la lista de activos.',
  'groups.column':
    '{column, select, name {Nombre} assets {Activos} description {Descripción} other {Modificado}}',
  'groups.create': 'Crear grupo',
  'groups.name': 'Nombre',
  'groups.description': 'Descripción',
  'groups.loadingGroup': 'Cargando el grupo',
  'groups.inMaintenance': 'miembros de este grupo están en una ventana de mantenimiento',
  'groups.rename': 'Renombrar',
  'groups.deleteTitle': '¿Eliminar el grupo {name}?',
  'groups.deleteConfirm': 'Eliminar grupo',
  'groups.deleteText':
    'El grupo desaparece; {n, plural, one {su # activo se queda tal como está} other {sus # activos se quedan tal como están}}.',
  'groups.members': 'Miembros ({n})',
  'groups.membersTable': 'Miembros',
  'groups.addMember': 'Añadir un activo al grupo',
  'groups.noMembers': 'Aún no hay activos en este grupo',
  'groups.memberColumn': '{column, select, asset {Activo} status {Estado} other {Plataforma}}',
  'groups.notVisible': 'no visible',
  'groups.removeMember': 'Quitar {name} del grupo',
  'groups.memberPages': 'Páginas de miembros',
  'groups.memberPage': 'Página {page} de {pages}',
};
