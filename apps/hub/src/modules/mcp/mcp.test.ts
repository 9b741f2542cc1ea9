/**
 * The MCP server as a client meets it: the SDK's own Client over Streamable HTTP to a listening hub, with an
 * admin, a viewer and a restricted key, and a fake agent that records what reached it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { agentChannelPath } from '@svc/protocol';
import { echoExec, FakeAgent, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { mcpPost } from '../../testing/mcp-post.js';

let t: TestHub | null = null;
const agents: FakeAgent[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
  for (const agent of agents.splice(0)) agent.close();
  await t?.close();
  t = null;
});

function baseUrl(hub: TestHub): string {
  return `http://127.0.0.1:${String(hub.servers?.httpPort)}`;
}

async function connect(hub: TestHub, key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl(hub)}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A hub listening on loopback with `count` fake agents online, each recording the commands it ran (answered once `held` is). */
async function hubWithAgents(count: number, held: Promise<void> = Promise.resolve()) {
  const hub = await startTestHub({ listen: true });
  t = hub;
  const identities = await provisionAgents(hub.hub, count, 'mcp');
  const commands = new Map<string, string[]>();
  for (const identity of identities) {
    const ran: string[] = [];
    commands.set(identity.assetId, ran);
    const agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(hub.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
      handlers: {
        'exec.run': async (payload) => {
          ran.push(payload.command);
          await held;
          const result = echoExec(payload);
          if ('error' in result) throw new Error(result.error.message);
          return result;
        },
      },
    });
    agents.push(agent);
    await agent.start();
  }
  for (const { assetId } of identities) {
    await until(async () => {
      const res = await hub.request('GET', `/api/v2/assets/${assetId}`);
      return (res.json.data as { status?: string } | undefined)?.status === 'online';
    });
  }
  return { hub, assetIds: identities.map((identity) => identity.assetId), commands };
}

function textOf(result: Record<string, unknown>): string {
  const [first] = (result.content ?? []) as { type: string; text?: string }[];
  return first?.text ?? '';
}

describe('MCP server at /mcp', () => {
  it('lists the tools with schemas and annotations, and runs read and acting tools for an admin key', async () => {
    const { hub, assetIds, commands } = await hubWithAgents(1);
    const [assetId = ''] = assetIds;
    const client = await connect(hub, hub.ownerKey);

    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get('assets_list')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
    });
    expect(byName.get('exec_single')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(byName.get('exec_single')?.inputSchema.required).toEqual(['id', 'command']);
    expect(byName.get('assets_get')?.outputSchema?.required).toEqual(['data']);

    const listed = await client.callTool({ name: 'assets_list', arguments: { per_page: 10 } });
    expect(listed.isError).toBeFalsy();
    const page = listed.structuredContent as { data: { id: string }[]; meta: { total: number } };
    expect(page.data.map((asset) => asset.id)).toContain(assetId);
    expect(page.meta.total).toBe(1);

    const ran = await client.callTool({
      name: 'exec_single',
      arguments: { id: assetId, command: 'uptime', timeout: 5 },
    });
    expect(ran.isError).toBeFalsy();
    expect(ran.structuredContent).toMatchObject({ data: { status: 'ok', exit_code: 0, stdout: 'uptime\n' } });
    expect(commands.get(assetId)).toEqual(['uptime']);

    const many = await client.callTool({
      name: 'exec_many',
      arguments: { targets: [assetId], command: 'hostname' },
    });
    expect(many.structuredContent).toMatchObject({ data: { summary: { total: 1, ok: 1 } } });

    // Each call is audited with the key (reads in the next batch), and what the route did carries the MCP mark.
    await until(async () => {
      const res = await hub.request('GET', '/api/v2/audit/events?action=mcp.tool_call');
      return res.json.meta?.total === 3;
    });
    const audit = await hub.request('GET', '/api/v2/audit/events?action=mcp.tool_call&per_page=50');
    const calls = audit.json.data as { target_id: string; actor_type: string }[];
    expect(calls.map((event) => event.target_id).sort()).toEqual(['assets_list', 'exec_many', 'exec_single']);
    expect(calls.every((event) => event.actor_type === 'api_key')).toBe(true);
    const execAudit = await hub.request('GET', `/api/v2/audit/events?asset_id=${assetId}&per_page=50`);
    const marked = (execAudit.json.data as { action: string; detail: { via?: string } }[]).filter((event) =>
      event.action.startsWith('exec'),
    );
    expect(marked.length).toBeGreaterThan(0);
    expect(marked.every((event) => event.detail.via === 'mcp')).toBe(true);

    const status = await hub.request('GET', '/api/v2/hub/status');
    expect((status.json.data as { mcp: unknown }).mcp).toEqual({ enabled: true, tool_calls_24h: 3 });
  });

  it('refuses a viewer key every acting tool, and nothing reaches the agent', async () => {
    const { hub, assetIds, commands } = await hubWithAgents(1);
    const [assetId = ''] = assetIds;
    const viewer = await hub.createKey({ role: 'viewer', scopes: ['*'] });
    const client = await connect(hub, viewer.raw_key);

    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('assets_list');
    expect(names).not.toContain('exec_single');
    expect(names).not.toContain('power_reboot');

    for (const [name, args] of [
      ['exec_single', { id: assetId, command: 'rm -rf /tmp/x' }],
      ['exec_many', { targets: [assetId], command: 'id' }],
      ['power_reboot', { id: assetId }],
      ['system_restartService', { id: assetId, name: 'ssh' }],
    ] as const) {
      const refused = await client.callTool({ name, arguments: args });
      expect(refused.isError, name).toBe(true);
      expect(textOf(refused), name).toMatch(/^read_only_role: /);
    }
    expect(commands.get(assetId)).toEqual([]);
    const read = await client.callTool({ name: 'assets_get', arguments: { id: assetId } });
    expect(read.structuredContent).toMatchObject({ data: { id: assetId } });
  });

  it('shows a restricted key only its assets and lets it act on no other', async () => {
    const { hub, assetIds, commands } = await hubWithAgents(2);
    const [mine = '', other = ''] = assetIds;
    const restricted = await hub.createKey({ role: 'admin', scopes: ['*'], allowed_assets: [mine] });
    const client = await connect(hub, restricted.raw_key);

    const listed = await client.callTool({ name: 'assets_list', arguments: {} });
    const ids = (listed.structuredContent as { data: { id: string }[] }).data.map((asset) => asset.id);
    expect(ids).toEqual([mine]);
    const found = await client.callTool({ name: 'search', arguments: { q: 'mcp' } });
    expect(JSON.stringify(found.structuredContent)).not.toContain(other);

    const hidden = await client.callTool({ name: 'assets_get', arguments: { id: other } });
    expect(textOf(hidden)).toMatch(/^not_found: /);
    const refused = await client.callTool({ name: 'exec_single', arguments: { id: other, command: 'id' } });
    expect(textOf(refused)).toMatch(/^not_found: /);
    const fanOut = await client.callTool({
      name: 'exec_many',
      arguments: { targets: [mine, other], command: 'id' },
    });
    expect(textOf(fanOut)).toMatch(/^not_found: /);
    expect(commands.get(other)).toEqual([]);
    expect(commands.get(mine)).toEqual([]);

    const allowed = await client.callTool({ name: 'exec_single', arguments: { id: mine, command: 'id' } });
    expect(allowed.isError).toBeFalsy();
    expect(commands.get(mine)).toEqual(['id']);
  });

  it('answers two calls in flight together under the same id each for its own caller', async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { hub, assetIds, commands } = await hubWithAgents(2, held);
    const [mine = '', other = ''] = assetIds;
    const restricted = await hub.createKey({ role: 'admin', scopes: ['*'], allowed_assets: [mine] });
    const call = (key: string, args: Record<string, unknown>) =>
      mcpPost(`${baseUrl(hub)}/mcp`, key, {
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'exec_single', arguments: args },
      }).then(async (res) => (await res.json()) as { id: unknown; result: Record<string, unknown> });
    // The owner's call waits at the agent while the restricted key's call, with the same id, runs and ends.
    const ownerCall = call(hub.ownerKey, { id: other, command: 'uptime' });
    await until(() => Promise.resolve((commands.get(other) ?? []).length === 1));
    const refused = await call(restricted.raw_key, { id: other, command: 'id' });
    release();
    const ran = await ownerCall;
    expect(refused.id).toBe(7);
    expect(textOf(refused.result)).toMatch(/^not_found: /);
    expect(ran.id).toBe(7);
    expect(ran.result.structuredContent).toMatchObject({ data: { exit_code: 0, stdout: 'uptime\n' } });
    expect(commands.get(other)).toEqual(['uptime']);
  });

  it('answers a plain tools/call with the route’s own data, as the SDK’s path answers one with _meta', async () => {
    const { hub, assetIds } = await hubWithAgents(2);
    const rpc = (body: unknown, version = '2025-06-18') =>
      mcpPost(`${baseUrl(hub)}/mcp`, hub.ownerKey, body, version);
    const call = (id: unknown, params: Record<string, unknown>) =>
      rpc({ jsonrpc: '2.0', id, method: 'tools/call', params });
    type Answer = {
      id: unknown;
      result?: { content: { type: string; text: string }[]; structuredContent?: unknown; isError?: boolean };
      error?: { code: number; message: string };
    };
    const listArgs = { name: 'assets_list', arguments: { per_page: 1, sort: 'name' } };

    const plain = (await (await call('one', listArgs)).json()) as Answer;
    const viaSdk = (await (await call(2, { ...listArgs, _meta: { progressToken: 5 } })).json()) as Answer;
    const rest = await hub.request('GET', '/api/v2/assets?per_page=1&sort=name');
    const { data, meta } = rest.json as { data: unknown; meta: unknown };
    expect(plain.id).toBe('one');
    expect(plain.result?.structuredContent).toEqual({ data, meta });
    expect(JSON.parse(plain.result?.content[0]?.text ?? '')).toEqual({ data, meta });
    expect(viaSdk.id).toBe(2);
    expect(viaSdk.result).toEqual(plain.result);
    expect((meta as { total: number }).total).toBe(assetIds.length);

    // A refusal of the route is an error result on both paths; an unknown tool is the SDK's invalid params.
    const missing = { name: 'assets_get', arguments: { id: 'ast_missing' } };
    const refused = (await (await call(3, missing)).json()) as Answer;
    expect(refused.result?.isError).toBe(true);
    expect(refused.result?.content[0]?.text).toMatch(/^not_found: /);
    const refusedViaSdk = (await (await call(3, { ...missing, _meta: {} })).json()) as Answer;
    expect(refusedViaSdk.result).toEqual(refused.result);
    const unknown = (await (await call(4, { name: 'no_such_tool', arguments: {} })).json()) as Answer;
    expect(unknown.error?.code).toBe(-32602);
    const badArgument = (await (
      await call(5, { name: 'assets_list', arguments: { nope: 1 } })
    ).json()) as Answer;
    expect(badArgument.result?.content[0]?.text).toMatch(/^validation: /);
    // The fast path keeps the transport's rules: a version the hub does not speak is refused.
    const oldVersion = await rpc(
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: listArgs },
      '1999-01-01',
    );
    expect(oldVersion.status).toBe(400);
  });

  it('answers 401 without a key, 403 to a foreign Origin, 405 to GET, 406 to no event streams, 202 to a notification, 400 to a batch or an unknown version, 404 to another key’s session', async () => {
    const hub = await startTestHub({ listen: true });
    t = hub;
    const url = `${baseUrl(hub)}/mcp`;
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    const post = (headers: Record<string, string>, body: unknown = initialize) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(body),
      });
    const owner = { authorization: `Bearer ${hub.ownerKey}` };

    const anonymous = await post({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);

    // The header that hands a caller to an internal call is worth nothing from the network.
    const borrowed = await fetch(`${baseUrl(hub)}/api/v2/assets`, {
      headers: { 'x-svc-internal-call': 'x' },
    });
    expect(borrowed.status).toBe(401);

    const rebinding = await post({ ...owner, origin: 'http://evil.example' });
    expect(rebinding.status).toBe(403);
    expect(((await rebinding.json()) as { error: string }).error).toBe('forbidden');

    const sameOrigin = await post({ ...owner, origin: baseUrl(hub) });
    expect(sameOrigin.status).toBe(200);

    expect((await fetch(url, { headers: owner })).status).toBe(405);
    expect((await post({ ...owner, accept: 'application/json' })).status).toBe(406);

    const opened = await post(owner);
    expect(opened.status).toBe(200);
    const session = opened.headers.get('mcp-session-id') ?? '';
    expect(session).toMatch(/^mcs_/);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const protocol = { 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': session };
    expect((await post({ ...owner, ...protocol }, list)).status).toBe(200);
    // A notification is taken and answered with nothing; a request under a version the server does not speak
    // is refused; a tools/list is no initialize, so it opens no session.
    const notified = await post(
      { ...owner, ...protocol },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    );
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe('');
    const oldVersion = await post({ ...owner, 'mcp-protocol-version': '1999-01-01' }, list);
    expect(oldVersion.status).toBe(400);
    expect(await oldVersion.text()).toContain('Unsupported protocol version');
    expect((await post(owner, list)).headers.get('mcp-session-id')).toBeNull();
    // A batch would carry many calls on one request of the rate limits: refused, nothing runs.
    const batch = await post({ ...owner, ...protocol }, [list, { ...list, id: 3 }]);
    expect(batch.status).toBe(400);
    expect(((await batch.json()) as { error: string }).error).toBe('validation');
    const other = await hub.createKey({ role: 'admin', scopes: ['*'] });
    const stolen = await post({ authorization: `Bearer ${other.raw_key}`, ...protocol }, list);
    expect(stolen.status).toBe(404);
  });

  it('refuses every request while policy.mcp_enabled is off, and runs nothing', async () => {
    const { hub, assetIds, commands } = await hubWithAgents(1);
    const [assetId = ''] = assetIds;
    const client = await connect(hub, hub.ownerKey);
    const off = await hub.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.mcp_enabled': false },
    });
    expect(off.status).toBe(200);

    await expect(
      client.callTool({ name: 'exec_single', arguments: { id: assetId, command: 'id' } }),
    ).rejects.toThrow(/403|policy/);
    expect(commands.get(assetId)).toEqual([]);
    const status = await hub.request('GET', '/api/v2/hub/status');
    expect((status.json.data as { mcp: unknown }).mcp).toEqual({ enabled: false, tool_calls_24h: 0 });
  });
});
