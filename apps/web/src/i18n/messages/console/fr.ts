// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { audit } from './audit.fr.js';
import { groups } from './groups.fr.js';
import { run } from './run.fr.js';
import { checks } from './checks.fr.js';
import { settings } from './settings.fr.js';
import { schedules } from './schedules.fr.js';
import { updates } from './updates.fr.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleFr: ConsoleCatalogue = {
  ...audit,
  ...groups,
  ...run,
  ...checks,
  ...settings,
  ...schedules,
  ...updates,
};
