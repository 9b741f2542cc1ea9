/**
 * The settings table: JSON values by key, one row each. Runtime settings (modules/settings) and the uploaded
 * TLS certificate (modules/tls) keep their keys in it; each module reads and writes only its own.
 */
import type { Executor } from './schema.js';

export async function readSetting(db: Executor, key: string): Promise<unknown> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  if (!row) return undefined;
  try {
    return JSON.parse(row.value) as unknown;
  } catch {
    return undefined;
  }
}

export async function writeSetting(db: Executor, key: string, value: unknown, now: Date): Promise<void> {
  const text = JSON.stringify(value);
  const updatedAt = now.toISOString();
  await db
    .insertInto('settings')
    .values({ key, value: text, updated_at: updatedAt })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: text, updated_at: updatedAt }))
    .execute();
}

/** Stores the value only when the key has none: of several writers at once, the first one's stays. */
export async function insertSettingIfAbsent(
  db: Executor,
  key: string,
  value: unknown,
  now: Date,
): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key, value: JSON.stringify(value), updated_at: now.toISOString() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
}

export async function deleteSetting(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('settings').where('key', '=', key).execute();
}

/** The stored values of the given keys (rows whose JSON no longer parses are left out). */
export async function readSettings(db: Executor, keys: readonly string[]): Promise<Map<string, unknown>> {
  const values = new Map<string, unknown>();
  if (keys.length === 0) return values;
  const rows = await db.selectFrom('settings').select(['key', 'value']).where('key', 'in', keys).execute();
  for (const row of rows) {
    try {
      values.set(row.key, JSON.parse(row.value) as unknown);
    } catch {
      // A row that does not parse is as if unset: the env or the default applies.
    }
  }
  return values;
}
