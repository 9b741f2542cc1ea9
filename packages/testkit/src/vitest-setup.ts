/**
 * Setup file of the tiers that start hubs (vitest.config.ts): at the end of each test file, drop the emptied
 * PostgreSQL schemas its hubs left for reuse (pg-schemas.ts) and remove the migrated SQLite template
 * (sqlite-template.ts).
 */
import { afterAll } from 'vitest';
import { dropSparePgSchemas } from './pg-schemas.js';
import { removeSqliteTemplate } from './sqlite-template.js';

afterAll(async () => {
  await removeSqliteTemplate();
  await dropSparePgSchemas();
});
