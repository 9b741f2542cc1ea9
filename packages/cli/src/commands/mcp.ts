/**
 * `svc mcp`: the hub's MCP server for clients that start a local process (stdio), bridged to the hub's `/mcp`
 * (Streamable HTTP) with the saved login: its key, and its pinned CA. Messages pass through unchanged; the key
 * goes only to the hub it was saved for, and never to the client. Ends when the client closes stdin.
 */
import type { Command } from 'commander';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  InitializeResultSchema,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
} from '@modelcontextprotocol/sdk/types.js';
import { mcpPath } from '@svc/protocol';
import type { FetchLike as SvcFetch } from '@svc/sdk';
import type { Context } from '../context.js';
import { createTransport } from '../https-fetch.js';

/** Headers of the hub's answer the MCP transport reads. */
const answerHeaders = ['content-type', 'mcp-session-id', 'www-authenticate', 'retry-after'];

/** A web fetch over the CLI's own transport (the pinned CA), as the SDK's client transport wants one. */
function webFetchOver(transport: SvcFetch) {
  return async (url: string | URL, init?: RequestInit): Promise<Response> => {
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value;
    });
    const answer = await transport(String(url), {
      method: init?.method ?? 'GET',
      headers,
      ...(typeof init?.body === 'string' ? { body: init.body } : {}),
      ...(init?.signal ? { signal: init.signal } : {}),
    });
    const text = await answer.text();
    const responseHeaders = new Headers();
    for (const name of answerHeaders) {
      const value = answer.headers?.get(name) ?? null;
      if (value !== null) responseHeaders.set(name, value);
    }
    const isEmpty = [202, 204, 205, 304].includes(answer.status);
    return new Response(isEmpty ? null : text, { status: answer.status, headers: responseHeaders });
  };
}

export function registerMcp(program: Command, ctx: Context): void {
  program
    .command('mcp')
    .description("the hub's MCP server on stdin/stdout, for MCP clients that start a local command")
    .action(async (_options: unknown, command: Command) => {
      const connection = ctx.connect(command, { idleTimeoutMs: 10 * 60_000 });
      const remote = new StreamableHTTPClientTransport(new URL(mcpPath, connection.hubUrl), {
        fetch: webFetchOver(
          createTransport({
            idleTimeoutMs: 10 * 60_000,
            ...(connection.caPem ? { caPem: connection.caPem } : {}),
          }),
        ),
        requestInit: { headers: { authorization: `Bearer ${connection.apiKey}` } },
      });
      const local = new StdioServerTransport(ctx.io.stdin, ctx.io.stdout);
      const pending = new Set<string | number>();
      // What the hub refused or could not be reached for goes back to the client as the request's error.
      const fail = (message: JSONRPCMessage, error: unknown) => {
        const text = error instanceof Error ? error.message : String(error);
        ctx.note(`svc mcp: ${text}`);
        if (isJSONRPCRequest(message)) {
          void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: text } });
        }
      };
      local.onmessage = (message) => {
        if (isJSONRPCRequest(message) && message.method === 'initialize') pending.add(message.id);
        remote.send(message).catch((error: unknown) => {
          fail(message, error);
        });
      };
      remote.onmessage = (message) => {
        // The version the client and hub agreed on goes on every later request, as the transport requires.
        if (isJSONRPCResultResponse(message) && pending.delete(message.id)) {
          const result = InitializeResultSchema.safeParse(message.result);
          if (result.success) remote.setProtocolVersion(result.data.protocolVersion);
        }
        void local.send(message);
      };
      remote.onerror = (error) => {
        ctx.note(`svc mcp: ${error.message}`);
      };
      await remote.start();
      await local.start();
      await new Promise<void>((resolve) => {
        ctx.io.stdin.once('end', resolve);
        ctx.io.stdin.once('close', resolve);
        ctx.io.interrupt.addEventListener(
          'abort',
          () => {
            resolve();
          },
          { once: true },
        );
      });
      await local.close();
      await remote.close();
    });
}
