/**
 * Runtime settings precedence (spec 2.7), as pure functions: a value set through the API wins, then the env
 * (or config), then the code default. A stored or env value the catalog no longer accepts is skipped, so a
 * narrowed range or a removed choice falls back instead of breaking the hub.
 */
import {
  settingDefinitions,
  type SettingDefinitions,
  type SettingKey,
  type SettingSource,
  type SettingValue,
} from '@svc/protocol/settings';
import { Value } from 'typebox/value';

interface ResolvedSetting {
  value: SettingValue;
  source: SettingSource;
}

export type SettingLayer = Partial<Record<SettingKey, unknown>>;
export type ResolvedSettings = Record<SettingKey, ResolvedSetting>;

export function isValidSettingValue(
  key: SettingKey,
  value: unknown,
  definitions: SettingDefinitions,
): boolean {
  return Value.Check(definitions[key].schema, value);
}

export function resolveSettings(
  stored: SettingLayer,
  env: SettingLayer,
  definitions: SettingDefinitions = settingDefinitions,
): ResolvedSettings {
  const resolved = {} as ResolvedSettings;
  for (const key of Object.keys(definitions) as SettingKey[]) {
    const fromApi = stored[key];
    const fromEnv = env[key];
    if (fromApi !== undefined && isValidSettingValue(key, fromApi, definitions)) {
      resolved[key] = { value: fromApi as SettingValue, source: 'api' };
    } else if (fromEnv !== undefined && isValidSettingValue(key, fromEnv, definitions)) {
      resolved[key] = { value: fromEnv as SettingValue, source: 'env' };
    } else {
      resolved[key] = { value: definitions[key].default, source: 'default' };
    }
  }
  return resolved;
}

export type ParsedSettingText = { ok: true; value: SettingValue } | { ok: false; problem: string };

/** An env var's text as the setting's type: the same words for booleans as the rest of the env. */
export function parseSettingText(
  key: SettingKey,
  raw: string,
  definitions: SettingDefinitions,
): ParsedSettingText {
  const definition = definitions[key];
  const text = raw.trim();
  let value: SettingValue = text;
  if (typeof definition.default === 'boolean') {
    const lower = text.toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(lower)) value = true;
    else if (['0', 'false', 'no', 'off'].includes(lower)) value = false;
    else return { ok: false, problem: `must be true or false, got "${raw}"` };
  } else if (typeof definition.default === 'number') {
    value = Number(text);
    if (text === '' || !Number.isInteger(value))
      return { ok: false, problem: `must be a whole number, got "${raw}"` };
  }
  // A choice is read as written or in lower case (SVC_OUTBOUND_ALLOW_PRIVATE=FALSE means false).
  const lowered = text.toLowerCase();
  if (typeof definition.default === 'string' && !Value.Check(definition.schema, text)) value = lowered;
  if (!Value.Check(definition.schema, value)) return { ok: false, problem: `is out of range, got "${raw}"` };
  return { ok: true, value };
}

/**
 * The env layer: every catalog setting whose env var is set, parsed. Problems are returned, not thrown, so
 * parseEnv can refuse the start naming the variable.
 */
export function readSettingsEnv(
  env: Record<string, string | undefined>,
  definitions: SettingDefinitions = settingDefinitions,
): { values: SettingLayer; problems: string[] } {
  const values: SettingLayer = {};
  const problems: string[] = [];
  for (const key of Object.keys(definitions) as SettingKey[]) {
    const name = definitions[key].env;
    const raw = name === undefined ? undefined : env[name];
    if (name === undefined || raw === undefined || raw.trim() === '') continue;
    const parsed = parseSettingText(key, raw, definitions);
    if (parsed.ok) values[key] = parsed.value;
    else problems.push(`${name} ${parsed.problem}`);
  }
  return { values, problems };
}
