/**
 * How a runtime setting is edited, read from the protocol's catalog (the one source of its schema): a
 * switch, a whole number with its range, or a choice of values. Keys the console does not know (a newer hub)
 * are edited as text, and the hub says what it takes.
 */
import { settingDefinitions, type Setting, type SettingValue } from '@svc/protocol';

export type SettingInput =
  | { kind: 'boolean' }
  | { kind: 'integer'; minimum?: number; maximum?: number }
  | { kind: 'choice'; choices: readonly string[] }
  | { kind: 'text' };

interface SchemaShape {
  enum?: unknown;
  type?: unknown;
  minimum?: unknown;
  maximum?: unknown;
}

function definitionSchema(key: string): SchemaShape | null {
  const definitions: Readonly<Record<string, { schema: unknown }>> = settingDefinitions;
  const schema = definitions[key]?.schema;
  return schema && typeof schema === 'object' ? schema : null;
}

export function settingInput(setting: Pick<Setting, 'key' | 'default'>): SettingInput {
  const schema = definitionSchema(setting.key);
  if (Array.isArray(schema?.enum)) return { kind: 'choice', choices: schema.enum.map(String) };
  if (typeof setting.default === 'boolean') return { kind: 'boolean' };
  if (typeof setting.default === 'number' || schema?.type === 'integer') {
    return {
      kind: 'integer',
      ...(typeof schema?.minimum === 'number' ? { minimum: schema.minimum } : {}),
      ...(typeof schema?.maximum === 'number' ? { maximum: schema.maximum } : {}),
    };
  }
  return { kind: 'text' };
}

/** A draft's text as the value the hub takes: a number when it reads as one, else the text (the hub refuses it). */
export function valueFromDraft(input: SettingInput, draft: string | boolean): SettingValue {
  if (typeof draft === 'boolean') return draft;
  if (input.kind === 'integer' && /^\s*-?\d+(\.\d+)?\s*$/.test(draft)) return Number(draft);
  return draft;
}
