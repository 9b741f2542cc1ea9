import type { AreaTranslation } from './en.js';
import type { audit as english } from './audit.en.js';

export const audit: AreaTranslation<typeof english> = {
  'audit.title': 'Registro de auditoría',
  'audit.filters': 'Filtrar el registro de auditoría',
  'audit.action': 'Acción',
  'audit.actor': 'Actor',
  'audit.actorPlaceholder': 'usr_… o key_…',
  'audit.asset': 'Activo',
  'audit.from': 'Desde',
  'audit.until': 'Hasta',
  'audit.apply': 'Aplicar filtros',
  'audit.clear': 'Borrar',
  'audit.caption': 'Eventos de auditoría, los más recientes primero',
  'audit.time': 'Hora',
  'audit.target': 'Objetivo',
  'audit.address': 'Dirección',
  'audit.detail': 'Detalle',
  'audit.loading': 'Cargando el registro de auditoría',
  'audit.noMatch': 'Ningún evento de auditoría coincide',
  'audit.none': 'Aún no hay eventos de auditoría',
};
