/**
 * A tool is authorized exactly as its route (decision 0073): what a caller gets from a tool call is what the same
 * caller gets from the REST route, refusal for refusal and page for page — the validation error, the viewer's
 * refusal, a restricted key's assets, the rate limit — whether the route runs in the process or through the
 * HTTP pipeline.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTestHub, type TestHub } from '@svc/testkit';
import { mcpPost } from '../../testing/mcp-post.js';

let t: TestHub | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

interface ToolAnswer {
  status: number;
  result?: { content: { text: string }[]; structuredContent?: unknown; isError?: boolean };
  error?: string;
}

async function callTool(hub: TestHub, key: string, name: string, args: Record<string, unknown>) {
  const res = await mcpPost(`http://127.0.0.1:${String(hub.servers?.httpPort)}/mcp`, key, {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name, arguments: args },
  });
  const body = (await res.json()) as { result?: ToolAnswer['result']; error?: string };
  return { status: res.status, ...body };
}

/** The REST refusal as a tool's error text reads it. */
function refusalText(rest: { status: number; json: { error?: string; message?: unknown } }): string {
  expect(rest.status).toBeGreaterThanOrEqual(400);
  return `${rest.json.error ?? ''}: ${String(rest.json.message)}`;
}

// Three hubs start here; on a loaded machine one takes longer than the default timeout.
describe('MCP tools and their routes', { timeout: 60_000 }, () => {
  it('refuse invalid arguments with the route’s own validation error, word for word', async () => {
    const hub = await startTestHub({ listen: true });
    t = hub;
    const key = hub.ownerKey;
    const cases: [string, Record<string, unknown>, string, string, unknown?][] = [
      ['assets_list', { per_page: 0 }, 'GET', '/api/v2/assets?per_page=0'],
      ['assets_list', { per_page: 'many' }, 'GET', '/api/v2/assets?per_page=many'],
      ['assets_list', { sort: 'nope' }, 'GET', '/api/v2/assets?sort=nope'],
      ['assets_get', { id: 'x'.repeat(600) }, 'GET', `/api/v2/assets/${'x'.repeat(600)}`],
      ['alerts_silence', { id: 'alr_x' }, 'POST', '/api/v2/alerts/alr_x/silence', {}],
      [
        'alerts_silence',
        { id: 'alr_x', duration_minutes: 0 },
        'POST',
        '/api/v2/alerts/alr_x/silence',
        { duration_minutes: 0 },
      ],
      // Past validation, the handler's own refusal.
      [
        'alerts_silence',
        { id: 'alr_x', duration_minutes: 5 },
        'POST',
        '/api/v2/alerts/alr_x/silence',
        { duration_minutes: 5 },
      ],
    ];
    const inject = vi.spyOn(hub.hub.app, 'inject');
    for (const [tool, args, method, url, body] of cases) {
      const rest = await hub.request(method, url, body === undefined ? {} : { body });
      inject.mockClear();
      const answer = await callTool(hub, key, tool, args);
      // A typed route runs in the process; only a parameter the router would not route goes through inject().
      expect(inject.mock.calls.length, tool).toBe(tool === 'assets_get' ? 1 : 0);
      expect(answer.result?.isError, `${tool} ${JSON.stringify(args)}`).toBe(true);
      expect(answer.result?.content[0]?.text, `${tool} ${JSON.stringify(args)}`).toBe(refusalText(rest));
    }
  });

  it('refuse a viewer every acting tool as the route refuses it, and show a restricted key only its assets', async () => {
    const hub = await startTestHub({ listen: true });
    t = hub;
    const mine = await hub.createAsset({ name: 'parity-mine' });
    const other = await hub.createAsset({ name: 'parity-other' });
    const viewer = await hub.createKey({ role: 'viewer', scopes: ['*'] });
    const restricted = await hub.createKey({ role: 'admin', scopes: ['*'], allowed_assets: [mine.id] });

    const silence = { duration_minutes: 5 };
    const refused = await callTool(hub, viewer.raw_key, 'alerts_silence', { id: 'alr_x', ...silence });
    const restRefused = await hub.request('POST', '/api/v2/alerts/alr_x/silence', {
      key: viewer.raw_key,
      body: silence,
    });
    expect(restRefused.json.error).toBe('read_only_role');
    expect(refused.result?.content[0]?.text).toBe(refusalText(restRefused));

    for (const query of ['per_page=50', 'per_page=1&sort=name', 'q=parity']) {
      const rest = await hub.request('GET', `/api/v2/assets?${query}`, { key: restricted.raw_key });
      const args = Object.fromEntries(new URLSearchParams(query));
      const listed = await callTool(hub, restricted.raw_key, 'assets_list', args);
      expect(listed.result?.structuredContent, query).toEqual({ data: rest.json.data, meta: rest.json.meta });
      const ids = (listed.result?.structuredContent as { data: { id: string }[] }).data.map((a) => a.id);
      expect(ids, query).toEqual([mine.id]);
    }
    const hidden = await callTool(hub, restricted.raw_key, 'assets_get', { id: other.id });
    const restHidden = await hub.request('GET', `/api/v2/assets/${other.id}`, { key: restricted.raw_key });
    expect(restHidden.json.error).toBe('not_found');
    expect(hidden.result?.content[0]?.text).toBe(refusalText(restHidden));
    const seen = await callTool(hub, restricted.raw_key, 'assets_get', { id: mine.id });
    expect(seen.result?.structuredContent).toMatchObject({ data: { id: mine.id, name: 'parity-mine' } });

    // The owner's list is the route's page cache: the same page on every call, and the REST route's.
    const rest = await hub.request('GET', '/api/v2/assets?per_page=50');
    for (let i = 0; i < 2; i += 1) {
      const listed = await callTool(hub, hub.ownerKey, 'assets_list', { per_page: 50 });
      expect(listed.result?.structuredContent).toEqual({ data: rest.json.data, meta: rest.json.meta });
      expect(JSON.parse(listed.result?.content[0]?.text ?? '')).toEqual(listed.result?.structuredContent);
    }
  });

  it('count each tool call once against the key’s rate limit, as one REST request', async () => {
    const hub = await startTestHub({ listen: true, rateLimit: { enabled: true, perKeyPerMinute: 3 } });
    t = hub;
    const overMcp = await hub.createKey({ role: 'viewer', scopes: ['*'] });
    const overRest = await hub.createKey({ role: 'viewer', scopes: ['*'] });
    for (let i = 0; i < 3; i += 1) {
      const answer = await callTool(hub, overMcp.raw_key, 'assets_list', { per_page: 5 });
      expect(answer.status, `call ${String(i + 1)}`).toBe(200);
      expect(answer.result?.isError).toBeFalsy();
      const rest = await hub.request('GET', '/api/v2/assets?per_page=5', { key: overRest.raw_key });
      expect(rest.status).toBe(200);
    }
    const limited = await callTool(hub, overMcp.raw_key, 'assets_list', { per_page: 5 });
    const restLimited = await hub.request('GET', '/api/v2/assets?per_page=5', { key: overRest.raw_key });
    expect(restLimited.status).toBe(429);
    expect(limited.status).toBe(429);
    expect(limited.error).toBe(restLimited.json.error);
  });
});
