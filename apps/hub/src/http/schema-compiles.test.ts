import { describe, expect, it } from 'vitest';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { routeList } from '@svc/protocol';
import { buildLazySerializer } from './lazy-serializer.js';
import { contractSchemas } from './register-routes.js';
import { compileValidator } from './validation.js';

/*
 * The hub compiles a route's validators and serializer on its first request (validation.ts,
 * lazy-serializer.ts), not at start. This compiles every contract's, as its route is registered, so a schema
 * Ajv or fast-json-stringify refuses fails here, not as a 500 on that route's first call.
 */
describe('every contract’s schemas compile', () => {
  const compileSerializer = SerializerSelector()({}, undefined);

  it.each(routeList.map((contract) => [contract.name, contract] as const))('%s', (_name, contract) => {
    const { response, ...parts } = contractSchemas(contract);
    for (const [httpPart, schema] of Object.entries(parts)) {
      const validate = compileValidator({ schema: schema as object, httpPart });
      // The first call compiles; a value of the wrong shape is refused, with Ajv's errors, not thrown at.
      expect(validate(Symbol('not JSON'))).toBe(false);
      expect(validate.errors?.length).toBeGreaterThan(0);
    }
    if (response !== undefined) {
      // As the lazy serializer does on the route's first answer.
      const route = { schema: response, method: contract.method, url: contract.path, httpStatus: '200' };
      expect(typeof compileSerializer(route)).toBe('function');
    }
  });

  it('refuses a schema Ajv cannot compile when it is first used', () => {
    const validate = compileValidator({
      schema: { type: 'object', properties: { a: { type: 'no-such-type' } } },
      httpPart: 'body',
    });
    expect(() => validate({ a: 1 })).toThrow(/type/);
  });

  it('builds a serializer on its first use, not before', () => {
    const route = { schema: { type: 'no-such-type' }, method: 'GET', url: '/x', httpStatus: '200' };
    const serialize = buildLazySerializer({}, undefined)(route);
    expect(() => serialize({})).toThrow();
  });
});
