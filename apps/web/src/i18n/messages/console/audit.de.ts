import type { AreaTranslation } from './en.js';
import type { audit as english } from './audit.en.js';

export const audit: AreaTranslation<typeof english> = {
  'audit.title': 'Audit-Protokoll',
  'audit.filters': 'Audit-Protokoll filtern',
  'audit.action': 'Aktion',
  'audit.actor': 'Akteur',
  'audit.actorPlaceholder': 'usr_… oder key_…',
  'audit.asset': 'Asset',
  'audit.from': 'Von',
  'audit.until': 'Bis',
  'audit.apply': 'Filter anwenden',
  'audit.clear': 'Zurücksetzen',
  'audit.caption': 'Audit-Ereignisse, neueste zuerst',
  'audit.time': 'Zeit',
  'audit.target': 'Ziel',
  'audit.address': 'Adresse',
  'audit.detail': 'Details',
  'audit.loading': 'Audit-Protokoll wird geladen',
  'audit.noMatch': 'Kein Audit-Ereignis passt',
  'audit.none': 'Noch keine Audit-Ereignisse',
};
