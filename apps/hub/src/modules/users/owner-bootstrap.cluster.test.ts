/**
 * The first run of two hub processes started together on one PostgreSQL (SVC_TEST_DATABASE_URL): one owner,
 * one credentials file, and the other process starts as on a later run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPgSchema } from '@svc/testkit';
import { systemClock } from '../../platform/clock.js';
import { openDatabase } from '../../platform/db/database.js';
import { silentLogger } from '../../platform/logger.js';
import { createAuditService } from '../audit/audit.service.js';
import { bootstrapOwner } from './owner-bootstrap.js';

const url = process.env.SVC_TEST_DATABASE_URL;

describe.runIf(url)('the owner bootstrap of processes starting together', () => {
  it('makes one owner; the other process finds it', async () => {
    const schema = await createPgSchema(url ?? '');
    const dirs = [0, 1].map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'svc-owner-')));
    const databases = await Promise.all(
      dirs.map((dataDir) => openDatabase({ databaseUrl: url ?? '', dataDir, pgSchema: schema.schema })),
    );
    try {
      const results = await Promise.all(
        databases.map((database, i) =>
          bootstrapOwner({
            db: database.db,
            clock: systemClock,
            audit: createAuditService({ db: database.db, clock: systemClock }),
            logger: silentLogger,
            dataDir: dirs[i] ?? '',
            bcryptCost: 4,
          }),
        ),
      );
      expect(results.map((r) => r.created).sort()).toEqual([false, true]);
      const [first] = databases;
      const owners = await first?.db.selectFrom('users').select('id').where('role', '=', 'owner').execute();
      expect(owners).toHaveLength(1);
      const files = dirs.filter((dir) => fs.existsSync(path.join(dir, 'owner-credentials.txt')));
      expect(files).toHaveLength(1);
    } finally {
      await Promise.all(databases.map((d) => d.close()));
      await schema.drop();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
