import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { FieldProblem } from '@svc/protocol';

// ajv-formats is CommonJS with a default export; under NodeNext it arrives wrapped.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

// Bodies are JSON and must carry the right types; query strings and path params are text and get coerced.
const bodyAjv = makeAjv(false);
const textAjv = makeAjv(true);

export function compileValidator({ schema, httpPart }: { schema: object; httpPart?: string | undefined }) {
  return (httpPart === 'body' ? bodyAjv : textAjv).compile(schema);
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
    const where = context === 'querystring' ? 'query' : (context ?? 'body');
    return { field: field ? `${where}.${field}` : where, problem };
  });
}
