/**
 * Builds the OpenAPI 3.1 document from the route inventory. Deterministic, so the committed copy can be
 * compared with a fresh build (the drift check).
 */
import {
  ErrorEnvelope,
  ListEnvelope,
  SuccessEnvelope,
  errorCatalog,
  fullPath,
  httpMethods,
  routeList,
  type RouteContract,
} from '@svc/protocol';
import { hubVersion } from '../platform/version.js';

type Json = Record<string, unknown>;

function plain(schema: unknown): Json {
  return JSON.parse(JSON.stringify(schema)) as Json;
}

function parametersOf(schema: unknown, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const object = plain(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    schema: property,
  }));
}

function errorResponses(route: RouteContract): Record<string, Json> {
  const ref = { $ref: '#/components/responses/Error' };
  const codes = new Set<number>([400, 429, 500]);
  if (route.auth !== 'public') [401, 403].forEach((c) => codes.add(c));
  if (route.path.includes('{')) codes.add(404);
  if (route.asset) codes.add(409);
  if (route.body) [413, 415].forEach((c) => codes.add(c));
  if (!route.response && !route.raw) codes.add(501);
  return Object.fromEntries([...codes].sort().map((c) => [String(c), ref]));
}

function operation(route: RouteContract): Json {
  const status = String(route.successStatus ?? 200);
  const success = route.response
    ? {
        description: 'Success',
        content: {
          'application/json': {
            schema: plain(route.list ? ListEnvelope(route.response) : SuccessEnvelope(route.response)),
          },
          // OpenAPI 3.1 has no schema for a sequence; the line schema describes each line.
          ...(route.stream ? { [route.stream.mediaType]: { schema: plain(route.stream.line) } } : {}),
        },
      }
    : { description: route.raw ? 'Success (not enveloped)' : 'Success' };
  return {
    operationId: route.operationId ?? route.name,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(route.auth === 'public' ? { security: [] } : {}),
    'x-svc-auth': route.auth,
    ...(route.scope ? { 'x-svc-scope': route.scope } : {}),
    ...(route.plannedIn ? { 'x-svc-planned': route.plannedIn } : {}),
    ...(route.upgrade ? { 'x-svc-upgrade': 'websocket' } : {}),
    parameters: [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')],
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: plain(route.body) } } } }
      : {}),
    responses: { [status]: success, ...errorResponses(route) },
  };
}

/**
 * Contracts by path, then method: the document's order does not depend on which area file a contract is in,
 * so moving one between areas leaves the committed document as it was.
 */
function documentOrder(routes: readonly RouteContract[]): RouteContract[] {
  const byPath = (a: RouteContract, b: RouteContract) => {
    const [pa, pb] = [fullPath(a), fullPath(b)];
    return pa < pb ? -1 : pa > pb ? 1 : 0;
  };
  return [...routes].sort(
    (a, b) => byPath(a, b) || httpMethods.indexOf(a.method) - httpMethods.indexOf(b.method),
  );
}

export function buildOpenApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const route of documentOrder(routeList)) {
    const path = fullPath(route);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc hub API',
      version: hubVersion,
      description:
        'REST interface of svc hub. Responses use the envelope {request_id, data[, meta]} or ' +
        `{request_id, error, message, status}. Error codes: ${Object.keys(errorCatalog).join(', ')}.`,
    },
    servers: [{ url: '/' }],
    security: [{ bearerAuth: [] }, { sessionCookie: [] }],
    components: {
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'API key svc_<prefix>_<secret>' },
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'svc_session' },
      },
      schemas: { ErrorEnvelope: plain(ErrorEnvelope) },
      responses: {
        Error: {
          description: 'Error envelope',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
    paths,
  };
}
