/**
 * The fast path's answers as a client reads them: a success with the route's JSON spliced in and its text copy,
 * and a handler's failure with the code and message the SDK's Protocol gives one.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { HubError } from '../../platform/hub-error.js';
import { toolAnswer, toolFailure } from './tool-answer.js';

describe('toolAnswer', () => {
  it('writes structured content as the route wrote it, and the same JSON escaped as its text copy', () => {
    const json = '{"data":[{"name":"a \\"quoted\\" host","note":"line\\nbreak"}],"meta":{"total":1}}';
    const members = json.slice(1, -1);
    const answer = JSON.parse(toolAnswer('"x"', { members, structured: true })) as Record<string, unknown>;
    expect(answer).toEqual({
      jsonrpc: '2.0',
      id: 'x',
      result: {
        content: [{ type: 'text', text: json }],
        structuredContent: JSON.parse(json) as unknown,
      },
    });
    const textOnly = JSON.parse(toolAnswer('7', { members, structured: false })) as { result: unknown };
    expect(textOnly.result).toEqual({ content: [{ type: 'text', text: json }] });
    // A kept page's escaped copy is kept with it, and reads the same on every call.
    for (let i = 0; i < 2; i += 1) {
      const kept = JSON.parse(toolAnswer('8', { members, structured: true, kept: true })) as {
        result: { content: { text: string }[]; structuredContent: unknown };
      };
      expect(kept.result.content[0]?.text).toBe(json);
      expect(kept.result.structuredContent).toEqual(JSON.parse(json));
    }
  });

  it('writes an error result as it is', () => {
    const result = { content: [{ type: 'text' as const, text: 'not_found: No such asset.' }], isError: true };
    expect(JSON.parse(toolAnswer('1', { result }))).toEqual({ jsonrpc: '2.0', id: 1, result });
  });
});

describe('toolFailure', () => {
  it('answers a thrown error with its JSON-RPC code, or internal error, and its message', () => {
    const invalid = new McpError(ErrorCode.InvalidParams, 'No tool named x.');
    expect(JSON.parse(toolFailure('1', invalid))).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'MCP error -32602: No tool named x.' },
    });
    const unavailable = new HubError('unavailable', 'The hub is still starting.');
    expect(JSON.parse(toolFailure('"a"', unavailable))).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32603, message: 'The hub is still starting.' },
    });
  });
});
