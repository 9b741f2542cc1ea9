import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type HubDatabase } from './database.js';
import { listPage } from './paging.js';

describe('listPage (SQLite)', () => {
  let database: HubDatabase;
  const now = '2026-11-23T00:00:00.000Z';
  const user = (n: number) => ({
    id: `usr_${String(n).padStart(2, '0')}`,
    // Reverse of the id order, so a page ordered by username is not the insertion order.
    username: `user-${String(25 - n).padStart(2, '0')}`,
    password_hash: '',
    role: n % 2 === 0 ? 'viewer' : 'operator',
    created_at: now,
    updated_at: now,
    totp_secret: null,
    totp_pending_secret: null,
    totp_last_step: null,
    oidc_subject: null,
    must_change_password: 0,
    disabled_at: null,
  });

  beforeAll(async () => {
    database = await openDatabase({ databaseUrl: null, dataDir: '', sqliteFile: ':memory:' });
    await database.db
      .insertInto('users')
      .values(Array.from({ length: 25 }, (_, i) => user(i)))
      .execute();
  });
  afterAll(async () => {
    await database.close();
  });

  const byUsername = () => database.db.selectFrom('users').select(['id', 'username']).orderBy('username');

  it('returns the window of the ordered rows and the total of every matching row', async () => {
    const page = await listPage(byUsername(), { limit: 10, offset: 10 });
    expect(page.total).toBe(25);
    expect(page.rows.map((r) => r.username)).toEqual(
      Array.from({ length: 10 }, (_, i) => `user-${String(i + 11).padStart(2, '0')}`),
    );
  });

  it('counts with the same filter as the page', async () => {
    const page = await listPage(byUsername().where('role', '=', 'viewer'), { limit: 5, offset: 0 });
    expect(page.total).toBe(13);
    expect(page.rows).toHaveLength(5);
  });

  it('past the last row: no rows, the full total', async () => {
    const page = await listPage(byUsername(), { limit: 10, offset: 30 });
    expect(page).toEqual({ rows: [], total: 25 });
  });

  it('a window of zero rows still counts (status aggregate asks for totals only)', async () => {
    const page = await listPage(byUsername(), { limit: 0, offset: 0 });
    expect(page).toEqual({ rows: [], total: 25 });
  });
});
