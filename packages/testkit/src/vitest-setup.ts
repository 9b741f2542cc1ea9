/**
 * Setup file of the tiers that start hubs (vitest.config.ts): at the end of each test file, drop the emptied
 * PostgreSQL schemas its hubs left for reuse (pg-schemas.ts).
 */
import { afterAll } from 'vitest';
import { dropSparePgSchemas } from './pg-schemas.js';

afterAll(dropSparePgSchemas);
