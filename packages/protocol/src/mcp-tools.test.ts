import { describe, expect, it } from 'vitest';
import type { RouteContract } from './contract.js';
import { routes, type RouteName } from './routes.js';
import { mcpToolNamed, mcpTools } from './mcp-tools.js';

const contractOf = (name: RouteName): RouteContract => routes[name];

describe('MCP tool catalogue', () => {
  it('names each tool after its route, in the characters every client accepts, once', () => {
    const names = mcpTools.map((tool) => tool.name);
    expect(new Set(names).size).toBe(names.length);
    for (const tool of mcpTools) {
      expect(tool.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(tool.name).toBe(tool.route.replaceAll('.', '_'));
      expect(mcpToolNamed(tool.name)).toBe(tool);
    }
    expect(mcpToolNamed('keys_create')).toBeUndefined();
  });

  it('offers no route a key could not call, nor one that manages keys, users or settings', () => {
    for (const tool of mcpTools) {
      const contract = contractOf(tool.route);
      expect(contract.sessionOnly ?? false, tool.name).toBe(false);
      expect(contract.raw ?? false, tool.name).toBe(false);
      expect(contract.auth, tool.name).not.toBe('admin');
      expect(contract.auth, tool.name).not.toBe('public');
    }
  });

  it('marks exactly the GET routes read-only, and never a read as destructive', () => {
    for (const tool of mcpTools) {
      const isRead = routes[tool.route].method === 'GET';
      expect(tool.annotations.readOnlyHint, tool.name).toBe(isRead);
      if (isRead) expect(tool.annotations.destructiveHint, tool.name).toBe(false);
    }
    expect(mcpToolNamed('power_reboot')?.annotations.destructiveHint).toBe(true);
    expect(mcpToolNamed('alerts_acknowledge')?.annotations.destructiveHint).toBe(false);
  });

  it('takes the params, query and body of the route as one object schema, each argument in one place', () => {
    const exec = mcpToolNamed('exec_single');
    expect(exec?.inputSchema.required).toEqual(['id', 'command']);
    expect(exec?.places).toEqual({ id: 'params', command: 'body', timeout: 'body' });
    expect(exec?.inputSchema.additionalProperties).toBe(false);
    const list = mcpToolNamed('assets_list');
    expect(list?.places.per_page).toBe('query');
    for (const tool of mcpTools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(Object.keys(tool.places).sort()).toEqual(Object.keys(tool.inputSchema.properties).sort());
      // Plain JSON: what tools/list sends is what the schema holds.
      expect(JSON.parse(JSON.stringify(tool.inputSchema))).toEqual(tool.inputSchema);
    }
  });

  it('describes the output as the data of the route’s envelope, with the page of a list', () => {
    expect(mcpToolNamed('assets_list')?.outputSchema?.required).toEqual(['data', 'meta']);
    expect(mcpToolNamed('assets_get')?.outputSchema?.required).toEqual(['data']);
    for (const tool of mcpTools) {
      expect(tool.outputSchema === undefined, tool.name).toBe(contractOf(tool.route).response === undefined);
      expect(tool.description, tool.name).toContain(routes[tool.route].path.split('/')[1] ?? '');
    }
  });
});
