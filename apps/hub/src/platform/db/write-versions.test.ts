import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type HubDatabase } from './database.js';
import type { WriteVersions } from './write-versions.js';
import { assetRow } from '../../testing/asset-row.js';

describe('write versions (SQLite)', () => {
  let database: HubDatabase;
  let versions: WriteVersions;
  const asset = (id: string) => assetRow(id);

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: null, dataDir: '', sqliteFile: ':memory:' });
    if (!database.writeVersions) throw new Error('SQLite should track writes');
    versions = database.writeVersions;
  });
  afterAll(async () => {
    await database.close();
  });

  it('moves a table’s counter after each insert, update and delete of it, and never for reads', async () => {
    const { db } = database;
    const start = versions.of('assets');
    await db.selectFrom('assets').selectAll().execute();
    expect(versions.of('assets')).toBe(start);
    await db.insertInto('assets').values(asset('ast_a')).execute();
    expect(versions.of('assets')).toBe(start + 1);
    await db.updateTable('assets').set({ name: 'renamed' }).where('id', '=', 'ast_a').execute();
    expect(versions.of('assets')).toBe(start + 2);
    await db.deleteFrom('assets').where('id', '=', 'ast_a').execute();
    expect(versions.of('assets')).toBe(start + 3);
    const groups = versions.of('groups');
    await db.insertInto('assets').values(asset('ast_b')).execute();
    expect(versions.of('groups')).toBe(groups);
  });

  it('counts writes inside a transaction, and leaves the counter alone when a statement fails', async () => {
    const { db } = database;
    const before = versions.of('assets');
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('assets').set({ name: 'in-trx' }).where('id', '=', 'ast_b').execute();
    });
    expect(versions.of('assets')).toBe(before + 1);
    await expect(db.insertInto('assets').values(asset('ast_b')).execute()).rejects.toThrow();
    expect(versions.of('assets')).toBe(before + 1);
  });
});
