/**
 * Response schemas drive fast-json-stringify, which only needs shapes. Validation keywords (formats,
 * patterns, lengths) and `anyOf` unions make it fall back to run-time checks on every response, so the
 * serializer gets a simplified copy: `anyOf [X, null]` becomes X with `type: [X's type, 'null']`, and the
 * keywords that only validate are dropped. The shapes stay the same, so nothing unlisted can leak.
 */
type JsonSchema = Record<string, unknown>;

const validationOnly = new Set([
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'default',
]);

function isNullSchema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && (value as JsonSchema).type === 'null';
}

export function serializationSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializationSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const source = schema as JsonSchema;
  const anyOf = source.anyOf;
  if (Array.isArray(anyOf) && anyOf.length === 2 && anyOf.some(isNullSchema)) {
    const other = anyOf.find((s) => !isNullSchema(s)) as JsonSchema | undefined;
    if (other && typeof other.type === 'string') {
      const simplified = serializationSchema(other) as JsonSchema;
      return { ...simplified, type: [other.type, 'null'] };
    }
  }
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(source)) {
    if (validationOnly.has(key)) continue;
    if (key === 'properties' && typeof value === 'object' && value !== null) {
      out[key] = Object.fromEntries(
        Object.entries(value as JsonSchema).map(([k, v]) => [k, serializationSchema(v)]),
      );
    } else {
      out[key] = serializationSchema(value);
    }
  }
  return out;
}
