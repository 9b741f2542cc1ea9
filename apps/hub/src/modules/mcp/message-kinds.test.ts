/**
 * The fast path's shape check (message-kinds.ts) takes only what the SDK's own schemas take: anything it lets
 * through skips them (mcp-server.ts), so it may refuse more than they do, never less.
 */
import { describe, expect, it } from 'vitest';
import { CallToolRequestSchema, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { plainToolCall } from './message-kinds.js';

const plain = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'assets_list', arguments: { per_page: 50 } },
};

const candidates: unknown[] = [
  plain,
  { ...plain, id: 'a' },
  { ...plain, params: { name: 'assets_list' } },
  { ...plain, id: 1.5 },
  { ...plain, id: null },
  { ...plain, id: 2 ** 60 },
  { ...plain, jsonrpc: '1.0' },
  { ...plain, method: 'tools/list' },
  { ...plain, extra: true },
  { jsonrpc: '2.0', method: 'tools/call', params: plain.params },
  { ...plain, params: { name: 5, arguments: {} } },
  { ...plain, params: { name: 'x', arguments: [] } },
  { ...plain, params: { name: 'x', arguments: null } },
  { ...plain, params: { name: 'x', arguments: 'a' } },
  { ...plain, params: { name: 'x', _meta: { progressToken: 1 } } },
  { ...plain, params: { name: 'x', task: { ttl: 1 } } },
  { ...plain, params: [] },
  { ...plain, params: null },
  [plain],
  null,
  'tools/call',
];

describe('plainToolCall', () => {
  it('takes a plain tools/call by name and arguments, string or integer id', () => {
    expect(plainToolCall(plain)).toEqual({ id: 1, name: 'assets_list', arguments: { per_page: 50 } });
    expect(plainToolCall({ ...plain, id: 'a', params: { name: 'whoami' } })).toEqual({
      id: 'a',
      name: 'whoami',
      arguments: {},
    });
  });

  it('takes nothing the SDK would refuse, and leaves _meta and tasks to the SDK', () => {
    for (const candidate of candidates) {
      if (plainToolCall(candidate) === null) continue;
      expect(JSONRPCMessageSchema.safeParse(candidate).success, JSON.stringify(candidate)).toBe(true);
      expect(CallToolRequestSchema.safeParse(candidate).success, JSON.stringify(candidate)).toBe(true);
    }
    expect(plainToolCall({ ...plain, params: { name: 'x', _meta: { progressToken: 1 } } })).toBeNull();
    expect(plainToolCall({ ...plain, params: { name: 'x', task: { ttl: 1 } } })).toBeNull();
    expect(plainToolCall({ ...plain, extra: true })).toBeNull();
    expect(candidates.filter((candidate) => plainToolCall(candidate) !== null)).toHaveLength(3);
  });
});
