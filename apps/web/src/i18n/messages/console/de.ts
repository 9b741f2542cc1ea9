// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { audit } from './audit.de.js';
import { groups } from './groups.de.js';
import { run } from './run.de.js';
import { checks } from './checks.de.js';
import { settings } from './settings.de.js';
import { schedules } from './schedules.de.js';
import { updates } from './updates.de.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleDe: ConsoleCatalogue = {
  ...audit,
  ...groups,
  ...run,
  ...checks,
  ...settings,
  ...schedules,
  ...updates,
};
