/**
 * The MCP server's tools: a curated set of routes, each tool one route of the inventory. Its name, description
 * and input and output schemas are derived here from the route's contract, so the REST API, the SDK and MCP
 * clients read one definition (docs/decisions/0073-mcp-server.md).
 */
import type { TSchema } from 'typebox';
import { fullPath, type RouteContract } from './contract.js';
import { PageMeta } from './envelope.js';
import { routes, type RouteName } from './routes.js';

/** What a tool does to the fleet: only reads it, changes it, or may stop or destroy something running. */
export type McpToolEffect = 'read' | 'change' | 'destructive';

interface McpToolEntry {
  route: RouteName;
  effect: McpToolEffect;
  /** Calling it twice with the same arguments does nothing more than once. */
  idempotent?: boolean;
}

/** The routes offered as tools, in the order tools/list answers them. */
const catalogue = [
  { route: 'whoami', effect: 'read' },
  { route: 'status.aggregate', effect: 'read' },
  { route: 'assets.list', effect: 'read' },
  { route: 'assets.get', effect: 'read' },
  { route: 'groups.list', effect: 'read' },
  { route: 'groups.get', effect: 'read' },
  { route: 'search', effect: 'read' },
  { route: 'system.services', effect: 'read' },
  { route: 'system.processes', effect: 'read' },
  { route: 'system.disks', effect: 'read' },
  { route: 'system.network', effect: 'read' },
  { route: 'system.logs', effect: 'read' },
  { route: 'metrics.overview', effect: 'read' },
  { route: 'metrics.history', effect: 'read' },
  { route: 'metrics.top', effect: 'read' },
  { route: 'alerts.list', effect: 'read' },
  { route: 'incidents.list', effect: 'read' },
  { route: 'audit.list', effect: 'read' },
  { route: 'containers.list', effect: 'read' },
  { route: 'actions.list', effect: 'read' },
  { route: 'updates.fleet', effect: 'read' },
  { route: 'updates.asset', effect: 'read' },
  { route: 'updates.runs.list', effect: 'read' },
  { route: 'updates.runs.get', effect: 'read' },
  { route: 'exec.single', effect: 'destructive' },
  { route: 'exec.many', effect: 'destructive' },
  { route: 'system.startService', effect: 'change', idempotent: true },
  { route: 'system.stopService', effect: 'destructive', idempotent: true },
  { route: 'system.restartService', effect: 'destructive' },
  { route: 'power.reboot', effect: 'destructive' },
  { route: 'power.shutdown', effect: 'destructive' },
  { route: 'power.wake', effect: 'change', idempotent: true },
  { route: 'containers.start', effect: 'change', idempotent: true },
  { route: 'containers.stop', effect: 'destructive', idempotent: true },
  { route: 'containers.restart', effect: 'destructive' },
  { route: 'actions.run', effect: 'destructive' },
  { route: 'updates.runs.create', effect: 'destructive' },
  { route: 'updates.runs.cancel', effect: 'destructive' },
  { route: 'alerts.acknowledge', effect: 'change', idempotent: true },
  { route: 'alerts.silence', effect: 'change', idempotent: true },
] as const satisfies readonly McpToolEntry[];

/** A JSON Schema of an object, as MCP wants a tool's input and output schemas. */
export interface McpObjectSchema {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  additionalProperties?: boolean;
}

/** Where an argument of a tool goes in its route's request. */
export type McpArgumentPlace = 'params' | 'query' | 'body';

export interface McpTool {
  /** The route's name with `_` for `.` (names clients accept everywhere: letters, digits, `_` and `-`). */
  name: string;
  route: RouteName;
  title: string;
  description: string;
  inputSchema: McpObjectSchema;
  /** `{data, meta?}` of the route's success envelope; absent for a route that answers no data. */
  outputSchema?: McpObjectSchema;
  /** Each argument's place in the request. A body that is not an object is the argument `body` whole. */
  places: Readonly<Record<string, McpArgumentPlace>>;
  /** The route's body is not an object: the argument `body` is the whole of it. */
  wholeBody: boolean;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
}

type JsonObject = Record<string, unknown>;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema as plain JSON (TypeBox keeps its own marks as non-enumerable keys). */
function plainSchema(schema: TSchema): JsonObject {
  return JSON.parse(JSON.stringify(schema)) as JsonObject;
}

/** The properties and required names of an object schema (or an `allOf` of them); null for any other form. */
function objectMembers(schema: JsonObject): { properties: JsonObject; required: string[] } | null {
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => (isJsonObject(part) ? objectMembers(part) : null));
    if (parts.some((part) => part === null)) return null;
    return {
      properties: Object.assign({}, ...parts.map((part) => part?.properties)) as JsonObject,
      required: parts.flatMap((part) => part?.required ?? []),
    };
  }
  if (schema.type !== 'object' || !isJsonObject(schema.properties)) return null;
  const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
  return { properties: schema.properties, required };
}

function inputOf(contract: RouteContract): {
  schema: McpObjectSchema;
  places: Record<string, McpArgumentPlace>;
  wholeBody: boolean;
} {
  let wholeBody = false;
  const properties: JsonObject = {};
  const required: string[] = [];
  const places: Record<string, McpArgumentPlace> = {};
  const add = (place: McpArgumentPlace, schema: TSchema | undefined) => {
    if (!schema) return;
    const plain = plainSchema(schema);
    const members = objectMembers(plain);
    const entries = members
      ? Object.entries(members.properties).map(([name, value]) => ({
          name,
          value,
          isRequired: members.required.includes(name),
        }))
      : [{ name: 'body', value: plain as unknown, isRequired: true }];
    if (!members) wholeBody = true;
    for (const { name, value, isRequired } of entries) {
      // One name, one place: a contract whose parts share a name cannot be a tool (mcp-tools.test.ts).
      if (name in places) throw new Error(`tool of ${contract.name}: argument ${name} is in two places`);
      places[name] = place;
      properties[name] = value;
      if (isRequired) required.push(name);
    }
  };
  add('params', contract.params);
  add('query', contract.query);
  add('body', contract.body);
  return {
    schema: {
      type: 'object',
      properties,
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    places,
    wholeBody,
  };
}

function outputOf(contract: RouteContract): McpObjectSchema | undefined {
  if (!contract.response) return undefined;
  const data = plainSchema(contract.response);
  if (contract.list) {
    return {
      type: 'object',
      properties: { data: { type: 'array', items: data }, meta: plainSchema(PageMeta) },
      required: ['data', 'meta'],
    };
  }
  return { type: 'object', properties: { data }, required: ['data'] };
}

function guardOf(contract: RouteContract): string {
  switch (contract.auth) {
    case 'scope':
      return `an API key with the scope ${contract.scope ?? ''}`;
    case 'admin':
      return 'the admin role';
    case 'authenticated':
    case 'public':
      return 'any valid credential';
  }
}

function toolOf(entry: McpToolEntry): McpTool {
  const contract: RouteContract = routes[entry.route];
  const { schema, places, wholeBody } = inputOf(contract);
  const output = outputOf(contract);
  const access = [
    guardOf(contract),
    contract.method === 'GET' ? null : 'not the viewer role',
    contract.readsSecrets ? 'not the viewer role (the answer may hold secrets)' : null,
  ].filter((part) => part !== null);
  const description = [
    contract.summary.endsWith('.') ? contract.summary : `${contract.summary}.`,
    contract.description ?? '',
    `Runs ${contract.method} ${fullPath(contract)} of the hub's API; needs ${access.join(', ')}.`,
    contract.asset ? 'Assets outside the key’s allowed assets answer not_found.' : '',
    contract.list ? 'Paged: `page` (from 1) and `per_page`.' : '',
  ]
    .filter((part) => part !== '')
    .join(' ');
  return {
    name: entry.route.replaceAll('.', '_'),
    route: entry.route,
    title: contract.summary,
    description,
    inputSchema: schema,
    ...(output ? { outputSchema: output } : {}),
    places,
    wholeBody,
    annotations: {
      title: contract.summary,
      readOnlyHint: entry.effect === 'read',
      destructiveHint: entry.effect === 'destructive',
      idempotentHint: entry.effect === 'read' || entry.idempotent === true,
      // The fleet is this hub's own; no tool reaches beyond what the hub manages.
      openWorldHint: false,
    },
  };
}

/** Every tool the MCP server offers, in order. */
export const mcpTools: readonly McpTool[] = catalogue.map(toolOf);

const toolsByName = new Map(mcpTools.map((tool) => [tool.name, tool]));

/** The tool of this name; undefined for a name the server does not offer. */
export function mcpToolNamed(name: string): McpTool | undefined {
  return toolsByName.get(name);
}
