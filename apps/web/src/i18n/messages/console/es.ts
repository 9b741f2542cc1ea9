// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { audit } from './audit.es.js';
import { groups } from './groups.es.js';
import { run } from './run.es.js';
import { checks } from './checks.es.js';
import { settings } from './settings.es.js';
import { schedules } from './schedules.es.js';
import { updates } from './updates.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
  ...audit,
  ...groups,
  ...run,
  ...checks,
  ...settings,
  ...schedules,
  ...updates,
};
