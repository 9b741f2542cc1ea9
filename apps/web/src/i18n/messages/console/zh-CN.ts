// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { audit } from './audit.zh-CN.js';
import { groups } from './groups.zh-CN.js';
import { run } from './run.zh-CN.js';
import { checks } from './checks.zh-CN.js';
import { settings } from './settings.zh-CN.js';
import { schedules } from './schedules.zh-CN.js';
import { updates } from './updates.zh-CN.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleZhCN: ConsoleCatalogue = {
  ...audit,
  ...groups,
  ...run,
  ...checks,
  ...settings,
  ...schedules,
  ...updates,
};
