/**
 * COPY FROM STDIN on a real PostgreSQL (platform/db/pg-copy.ts): rows streamed in several writes are stored as
 * sent, text with the format's special characters included; a row PostgreSQL refuses voids the whole copy with
 * its SQLSTATE, and the connection serves the next statement; a copy abandoned stores nothing.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyIn, copyText } from './pg-copy.js';

const databaseUrl = process.env.SVC_TEST_DATABASE_URL;

describe('copyText', () => {
  it('escapes what the text format gives a meaning to, and writes null as \\N', () => {
    expect(copyText('plain')).toBe('plain');
    expect(copyText('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyText(null)).toBe('\\N');
    expect(copyText(1.5)).toBe('1.5');
    expect(copyText(123_456_789_012)).toBe('123456789012');
  });
});

describe.runIf(databaseUrl)('copyIn on PostgreSQL', () => {
  const schema = `copy_${randomBytes(4).toString('hex')}`;
  let client: pg.Client;

  beforeAll(async () => {
    client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    await client.query(`create schema ${schema}`);
    await client.query(`set search_path = ${schema}`);
    await client.query('create table t (id bigint primary key, label text, ratio real)');
  });

  afterAll(async () => {
    await client.query(`drop schema ${schema} cascade`);
    await client.end();
  });

  const line = (id: number, label: string | null, ratio: number) =>
    `${copyText(id)}\t${copyText(label)}\t${copyText(ratio)}\n`;

  it('stores the rows of several writes, special characters and nulls as sent', async () => {
    const copy = await copyIn(client, 'copy t (id, label, ratio) from stdin');
    await copy.write(line(1, 'tab\there', 0.5) + line(2, 'back\\slash\nnewline', 1e-7));
    await copy.write(line(3, null, 42));
    expect(await copy.end()).toBe(3);
    const { rows } = await client.query<{ id: string; label: string | null; ratio: number }>(
      'select id, label, ratio from t order by id',
    );
    expect(rows).toEqual([
      { id: '1', label: 'tab\there', ratio: 0.5 },
      { id: '2', label: 'back\\slash\nnewline', ratio: 1e-7 },
      { id: '3', label: null, ratio: 42 },
    ]);
  });

  it('stores none of a copy PostgreSQL refuses a row of, with its SQLSTATE, and serves the next statement', async () => {
    const copy = await copyIn(client, 'copy t (id, label, ratio) from stdin');
    await copy.write(line(10, 'fine', 1) + line(1, 'duplicate key', 1));
    await expect(copy.end()).rejects.toMatchObject({ code: '23505' });
    const { rows } = await client.query<{ n: string }>('select count(*) as n from t where id = 10');
    expect(rows[0]?.n).toBe('0');
  });

  it('stores none of an abandoned copy', async () => {
    const copy = await copyIn(client, 'copy t (id, label, ratio) from stdin');
    await copy.write(line(20, 'never', 1));
    copy.fail('abandoned by the test');
    await expect(copy.end()).rejects.toThrow(/abandoned by the test/);
    const { rows } = await client.query<{ n: string }>('select count(*) as n from t where id = 20');
    expect(rows[0]?.n).toBe('0');
  });

  it('rejects a statement PostgreSQL refuses before any row', async () => {
    await expect(copyIn(client, 'copy missing_table (id) from stdin')).rejects.toMatchObject({
      code: '42P01',
    });
    expect((await client.query<{ one: number }>('select 1 as one')).rows[0]?.one).toBe(1);
  });
});
