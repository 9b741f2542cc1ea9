/**
 * Response serializers built on a route's first answer rather than when the hub starts. Fastify compiles every
 * route's response schema with fast-json-stringify once it is ready: about 0.4 s of CPU at each start of the
 * hub, for routes most starts never answer. This is Fastify's own serializer factory with each route's compile
 * put off until it is used; `schema-compiles.test.ts` builds every contract's serializer, so a schema
 * fast-json-stringify refuses fails there rather than on its route's first answer.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<
  NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer']
>;

const eagerFactory = SerializerSelector();

export const buildLazySerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = eagerFactory(externalSchemas, options);
  return (route) => {
    let serialize: ((data: unknown) => string) | undefined;
    return (data: unknown) => (serialize ??= compile(route))(data);
  };
};
