import type { AreaTranslation } from './en.js';
import type { incidents as english } from './incidents.en.js';

export const incidents: AreaTranslation<typeof english> = {
  'incidents.filters': 'Filtrar incidentes',
  'incidents.status': 'Estado',
  'incidents.anyStatus': 'Cualquier estado',
  'incidents.statusValue': '{status, select, open {abierto} resolved {resuelto} other {{status}}}',
  'incidents.loading': 'Cargando incidentes',
  'incidents.none': 'No hay incidentes',
  'incidents.noneText':
    'Un incidente se abre cuando salta la primera alerta de un activo y reúne las alertas que siguen.',
  'incidents.severity': 'Gravedad',
  'incidents.titleColumn': 'Título',
  'incidents.opened': 'Abierto',
  'incidents.review': 'Revisión',
  'incidents.reviewNamed': 'Revisión de {title}',
  'incidents.activeOf': '{active} activas / {total}',
  'incidents.resolve': 'Resolver',
  'incidents.resolveTitle': 'Resolver el incidente',
  'incidents.resolveText':
    'Sus alertas quedan como están; la próxima alerta del activo abre un nuevo incidente.',
  'incidents.reviewTitle': 'Revisión del incidente',
  'incidents.all': 'Todos los incidentes',
  'incidents.export': 'Exportar en Markdown',
  'incidents.loadingReview': 'Cargando la revisión',
  'incidents.openedAt': '{title} — {status}, abierto {opened}',
  'incidents.openedResolved': '{title} — {status}, abierto {opened}, resuelto {resolved}',
  'incidents.summary': 'Resumen',
  'incidents.cause': 'Causa',
  'incidents.followUps': 'Acciones de seguimiento',
  'incidents.noFollowUps': 'Ninguna todavía.',
  'incidents.followUp': 'Acción de seguimiento {n}',
  'incidents.followUpDone': 'Acción de seguimiento {n} hecha',
  'incidents.removeFollowUp': 'Quitar la acción de seguimiento {n}',
  'incidents.addFollowUp': 'Añadir acción de seguimiento',
  'incidents.saveReview': 'Guardar la revisión',
  'incidents.saved': 'Guardado.',
  'incidents.atMostCharacters':
    '{max, plural, one {como máximo # carácter} other {como máximo # caracteres}}',
  'incidents.atMostFollowUps':
    '{max, plural, one {como máximo # acción de seguimiento} other {como máximo # acciones de seguimiento}}',
  'incidents.followUpEmpty': 'cada acción de seguimiento necesita un texto',
  'incidents.followUpTooLong':
    '{max, plural, one {una acción de seguimiento tiene como máximo # carácter} other {una acción de seguimiento tiene como máximo # caracteres}}',
  'incidents.timeline': 'Cronología',
  'incidents.source':
    '{source, select, incident {incidente} alert {alerta} audit {auditoría} other {{source}}}',
  'incidents.by': '(por {actor})',
};
