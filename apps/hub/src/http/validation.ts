import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import { displayNamePattern, displayTextPattern, displayTextProblem, type FieldProblem } from '@svc/protocol';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

// ajv-formats defines date-time as a validate/compare pair (its type is the wider `Format` union).
const rfc3339 = fullFormats['date-time'] as {
  validate: (text: string) => boolean;
  compare: (a: string, b: string) => number | undefined;
};

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  // RFC 3339 allows a leap second (`23:59:60`) that a JavaScript Date cannot hold: every timestamp the hub
  // accepts must also be one it can read, or `new Date(text).toISOString()` throws deep inside a service.
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (text: string) => rfc3339.validate(text) && !Number.isNaN(Date.parse(text)),
    compare: rfc3339.compare,
  });
  return ajv;
}

// Bodies are JSON and must carry the right types; query strings and path params are text and get coerced.
const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

/**
 * Where the first NUL character sits in a value (a JSON pointer), or null. PostgreSQL cannot store U+0000 in
 * text and SQLite cuts strings (and LIKE patterns) at it, so no string the hub accepts may hold one.
 */
function findNul(root: unknown): string | null {
  const stack: [unknown, string][] = [[root, '']];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [value, pointer] = top;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return pointer;
    } else if (Array.isArray(value)) {
      value.forEach((item, i) => stack.push([item, `${pointer}/${i}`]));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        if (key.includes('\u0000')) return pointer;
        stack.push([item, `${pointer}/${key}`]);
      }
    }
  }
  return null;
}

/** Whether any string or key in a value holds a NUL: findNul without building a pointer for every value it passes. */
function holdsNul(root: unknown): boolean {
  if (typeof root === 'string') return root.includes('\u0000');
  if (typeof root !== 'object' || root === null) return false;
  const stack: object[] = [root];
  for (let value = stack.pop(); value; value = stack.pop()) {
    if (Array.isArray(value)) {
      for (const item of value as unknown[]) {
        if (typeof item === 'string') {
          if (item.includes('\u0000')) return true;
        } else if (typeof item === 'object' && item !== null) stack.push(item);
      }
      continue;
    }
    for (const key in value) {
      if (key.includes('\u0000')) return true;
      const item = (value as Record<string, unknown>)[key];
      if (typeof item === 'string') {
        if (item.includes('\u0000')) return true;
      } else if (typeof item === 'object' && item !== null) stack.push(item);
    }
  }
  return false;
}

/**
 * The validator of one schema part, compiled by Ajv on its first call rather than when the route is registered:
 * compiling every route's schemas took about 0.6 s of CPU at each start of the hub, for routes most starts
 * never see. `schema-compiles.test.ts` compiles every contract's schemas, so a bad one fails there rather than
 * on its route's first request.
 */
export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string | undefined }) {
  let validate: ValidateFunction | undefined;
  const checked = Object.assign(
    (data: unknown, dataCxt?: Parameters<ValidateFunction>[1]): boolean => {
      validate ??= (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
      checked.errors = null;
      if (!validate(data, dataCxt)) {
        checked.errors = validate.errors ?? null;
        return false;
      }
      const pointer = holdsNul(data) ? findNul(data) : null;
      if (pointer === null) return true;
      checked.errors = [
        {
          instancePath: pointer,
          schemaPath: '#',
          keyword: 'nul',
          params: {},
          message: 'must not contain the NUL character',
        },
      ];
      return false;
    },
    // Fastify passes the parent (so Ajv can coerce a root value) only to functions that carry a schemaEnv; every
    // Ajv function does, so this one says so before it is compiled.
    { errors: null as ErrorObject[] | null, schemaEnv: true },
  );
  return checked;
}

/** Ajv problems as `{field, problem}` a person can act on: `body.name: must NOT have more than 120 characters`. */
export function describeValidation(
  errors: readonly (FastifySchemaValidationError | ErrorObject)[],
  context: string | undefined,
): FieldProblem[] {
  return errors.map((e) => {
    const params = e.params as Record<string, unknown>;
    let field = (e.instancePath || '').replace(/^\//, '').replace(/\//g, '.');
    if (typeof params.missingProperty === 'string')
      field = field ? `${field}.${params.missingProperty}` : params.missingProperty;
    let problem = e.message ?? 'is not valid';
    if (typeof params.additionalProperty === 'string') {
      field = field ? `${field}.${params.additionalProperty}` : params.additionalProperty;
      problem = 'is not a known field';
    }
    if (Array.isArray(params.allowedValues)) problem = `must be one of ${params.allowedValues.join(', ')}`;
    // The pattern itself (a class of escaped code points) would tell the caller nothing.
    if (params.pattern === displayNamePattern || params.pattern === displayTextPattern)
      problem = displayTextProblem;
    const where = context === 'querystring' ? 'query' : (context ?? 'body');
    return { field: field ? `${where}.${field}` : where, problem };
  });
}
