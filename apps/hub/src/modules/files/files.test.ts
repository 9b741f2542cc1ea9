import { describe, expect, it } from 'vitest';
import { agentErrorCodes, agentLimits, type AgentErrorCode } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { AgentOfflineError, AgentReplyError } from '../../agents/agent-gateway.js';
import type { FakeHandlers } from '../../testing/fake-gateway.js';
import { useOperations } from '../../testing/operations-app.js';
import { canonicalPath } from '../../agents/agent-paths.js';
import { decodeBase64, downloadName } from './file-transfer.js';

/** A tiny file system for the fake agent: path → bytes. */
function memoryFiles(files: Map<string, Buffer>): FakeHandlers {
  return {
    'files.read': ({ path }) => {
      const bytes = files.get(path);
      if (!bytes) throw new AgentReplyError('not_found', `${path}: no such file`);
      return { path, size: bytes.length, data_base64: bytes.toString('base64') };
    },
    'files.write': ({ path, data_base64, overwrite }) => {
      if (files.has(path) && !overwrite) throw new AgentReplyError('exists', `${path} exists`);
      const bytes = Buffer.from(data_base64, 'base64');
      files.set(path, bytes);
      return { path, size: bytes.length };
    },
    'files.list': ({ path }) => ({
      path,
      truncated: false,
      entries: [...files.entries()]
        .filter(([p]) => p.startsWith(`${path}/`))
        .map(([p, b]) => ({
          name: p.slice(path.length + 1),
          type: 'file' as const,
          size: b.length,
          mode: '0644',
          modified_at: null,
        })),
    }),
    'files.mkdir': ({ path }) => ({ path }),
    'files.rename': ({ from, to }) => ({ from, to }),
    'files.copy': ({ from, to }) => ({ from, to }),
    'files.delete': ({ path }) => ({ path }),
  };
}

async function auditOf(t: TestHub, assetId: string) {
  const rows = await t.hub.database.db
    .selectFrom('audit_events')
    .selectAll()
    .where('asset_id', '=', assetId)
    .where('action', 'like', 'files.%')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    action: r.action,
    target: r.target_id,
    detail: JSON.parse(r.detail) as Record<string, unknown>,
  }));
}

const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe.each(databaseTargets())('files ($name)', ({ options }) => {
  const use = useOperations(options);

  it('downloads a file as raw bytes, all 256 byte values intact, as an attachment', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: memoryFiles(new Map([['/srv/blob.bin', allBytes]])) });

    const res = await ops.request('GET', `/api/v2/assets/${asset.id}/files/read?path=/srv//./blob.bin`);

    expect(res.status).toBe(200);
    expect(res.body.equals(allBytes)).toBe(true);
    expect(res.headers['content-type']).toBe('application/octet-stream');
    expect(res.headers['content-length']).toBe('256');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="blob.bin"; filename*=UTF-8''blob.bin`,
    );
    expect(ops.gateway.callsOf('files.read')[0]?.payload).toEqual({
      path: '/srv/blob.bin',
      max_bytes: agentLimits.fileBytes,
    });
  });

  it('names a download safely whatever the file is called', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const name = '/tmp/ré sumé";\r\nx.pdf';
    ops.gateway.connect(asset.id, { handlers: memoryFiles(new Map([[name, Buffer.from('pdf')]])) });

    const res = await ops.request(
      'GET',
      `/api/v2/assets/${asset.id}/files/read?path=${encodeURIComponent(name)}`,
    );

    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="r__sum_____x.pdf"; filename*=UTF-8''r%C3%A9%20sum%C3%A9%22%3B%0D%0Ax.pdf`,
    );
  });

  it('uploads binary-safe: what is written reads back byte for byte, and the write is audited with its hash', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const files = new Map<string, Buffer>();
    ops.gateway.connect(asset.id, { handlers: memoryFiles(files) });

    const write = await ops.request('POST', `/api/v2/assets/${asset.id}/files/write`, {
      body: { path: '/opt/app/data.bin', content_base64: allBytes.toString('base64') },
    });
    const read = await ops.request('GET', `/api/v2/assets/${asset.id}/files/read?path=/opt/app/data.bin`);

    expect(write.status).toBe(200);
    expect(write.json.data).toEqual({ path: '/opt/app/data.bin', size: 256 });
    expect(files.get('/opt/app/data.bin')?.equals(allBytes)).toBe(true);
    expect(read.body.equals(allBytes)).toBe(true);
    expect(await auditOf(t, asset.id)).toEqual([
      {
        action: 'files.write',
        target: '/opt/app/data.bin',
        detail: {
          path: '/opt/app/data.bin',
          size: 256,
          overwrite: false,
          sha256: '40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880',
        },
      },
    ]);
  });

  it('refuses an upload over the file limit with 413 and sends nothing', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: memoryFiles(new Map()) });
    const tooBig = Buffer.alloc(agentLimits.fileBytes + 1, 0x61).toString('base64');

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/files/write`, {
      body: { path: '/tmp/big', content_base64: tooBig },
    });

    expect(res.status).toBe(413);
    expect(res.json.error).toBe('payload_too_large');
    expect(ops.gateway.calls).toHaveLength(0);
    expect(await auditOf(t, asset.id)).toEqual([]);
  });

  // The schema sets no maxLength on content_base64, so any file over the limit (up to the route's body limit)
  // reaches the service and gets the same 413.
  it('refuses a file a little more over the limit with 413 as well', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: memoryFiles(new Map()) });
    const tooBig = Buffer.alloc(agentLimits.fileBytes + 1024, 0x61).toString('base64');

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/files/write`, {
      body: { path: '/tmp/big', content_base64: tooBig },
    });

    expect(ops.gateway.calls).toHaveLength(0);
    expect(res.status).toBe(413);
  });

  it('accepts an upload of exactly the limit', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const files = new Map<string, Buffer>();
    ops.gateway.connect(asset.id, { handlers: memoryFiles(files) });

    const res = await ops.request('POST', `/api/v2/assets/${asset.id}/files/write`, {
      body: {
        path: '/tmp/max',
        content_base64: Buffer.alloc(agentLimits.fileBytes, 0x62).toString('base64'),
      },
    });

    expect(res.status).toBe(200);
    expect(files.get('/tmp/max')?.length).toBe(agentLimits.fileBytes);
  });

  it('refuses content that is not base64', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: memoryFiles(new Map()) });
    for (const content of ['abcde', 'QR==', 'not base64!']) {
      const res = await ops.request('POST', `/api/v2/assets/${asset.id}/files/write`, {
        body: { path: '/tmp/x', content_base64: content },
      });
      expect(res.status, content).toBe(400);
    }
    expect(ops.gateway.calls).toHaveLength(0);
  });

  it('refuses relative paths, NUL, traversal and the root as a delete target, before anything is sent', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: memoryFiles(new Map()) });
    const base = `/api/v2/assets/${asset.id}`;

    const attempts = [
      ops.request('GET', `${base}/files?path=etc/passwd`),
      ops.request('GET', `${base}/files?path=/var/log/../../etc`),
      ops.request('GET', `${base}/files/read?path=/etc/..`),
      ops.request('GET', `${base}/files/read?path=/etc/passwd%00.txt`),
      ops.request('GET', `${base}/files?path=`),
      ops.request('POST', `${base}/files/write`, { body: { path: 'relative.txt', content_base64: '' } }),
      ops.request('POST', `${base}/files/mkdir`, { body: { path: '/a/../../b' } }),
      ops.request('POST', `${base}/files/rename`, { body: { from: '/a', to: '../b' } }),
      ops.request('POST', `${base}/files/copy`, { body: { from: '/a/./b', to: '/a/b' } }),
      ops.request('DELETE', `${base}/files?path=/&recursive=true`),
      ops.request('DELETE', `${base}/files?path=//./`),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(400);
      expect(res.json.error).toBe('validation');
    }
    expect(ops.gateway.calls).toHaveLength(0);
  });

  it('sends canonical paths and audits every mutation with the asset before sending', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const handlers = memoryFiles(new Map());
    ops.gateway.connect(asset.id, { handlers });
    const base = `/api/v2/assets/${asset.id}`;

    expect(
      (await ops.request('POST', `${base}/files/mkdir`, { body: { path: '/data//new/', recursive: true } }))
        .status,
    ).toBe(200);
    expect(
      (await ops.request('POST', `${base}/files/rename`, { body: { from: '/data/a', to: '/data/./b' } }))
        .status,
    ).toBe(200);
    expect(
      (
        await ops.request('POST', `${base}/files/copy`, {
          body: { from: '/data/b', to: '/backup/b', overwrite: true },
        })
      ).status,
    ).toBe(200);
    expect((await ops.request('DELETE', `${base}/files?path=/data/b/&recursive=true`)).status).toBe(200);

    expect(ops.gateway.calls.map((c) => [c.type, c.payload])).toEqual([
      ['files.mkdir', { path: '/data/new', recursive: true }],
      ['files.rename', { from: '/data/a', to: '/data/b', overwrite: false }],
      ['files.copy', { from: '/data/b', to: '/backup/b', overwrite: true }],
      ['files.delete', { path: '/data/b', recursive: true }],
    ]);
    expect((await auditOf(t, asset.id)).map((a) => [a.action, a.target])).toEqual([
      ['files.mkdir', '/data/new'],
      ['files.rename', '/data/a'],
      ['files.copy', '/data/b'],
      ['files.delete', '/data/b'],
    ]);
  });

  it('lists a directory through the agent', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, {
      handlers: memoryFiles(new Map([['/etc/hosts', Buffer.from('127.0.0.1 localhost\n')]])),
    });

    const res = await ops.request('GET', `/api/v2/assets/${asset.id}/files?path=/etc/`);

    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      path: '/etc',
      truncated: false,
      entries: [{ name: 'hosts', type: 'file', size: 20, mode: '0644', modified_at: null }],
    });
  });

  it('maps every agent error code to the hub catalog', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'box' });
    const expected: Record<AgentErrorCode, [number, string]> = {
      not_found: [404, 'not_found'],
      permission_denied: [403, 'forbidden'],
      forbidden_path: [403, 'forbidden'],
      invalid_path: [400, 'validation'],
      invalid_argument: [400, 'validation'],
      too_large: [413, 'payload_too_large'],
      exists: [409, 'conflict'],
      is_directory: [400, 'validation'],
      not_directory: [400, 'validation'],
      unsupported: [409, 'conflict'],
      timeout: [503, 'unavailable'],
      failed: [502, 'upstream_error'],
    };
    for (const code of agentErrorCodes) {
      ops.gateway.connect(asset.id, {
        handlers: {
          'files.list': () => {
            throw new AgentReplyError(code, `agent says ${code}`);
          },
        },
      });
      const res = await ops.request('GET', `/api/v2/assets/${asset.id}/files?path=/x`);
      expect([res.status, res.json.error], code).toEqual(expected[code]);
      expect(res.json.message).toBe(`asset box (${asset.id}): agent says ${code}`);
    }
  });

  it('answers 409 asset_offline when the agent goes away during the request', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset({ name: 'flaky' });
    await ops.setLastSeen(asset.id, '2026-11-23T11:59:00.000Z');
    ops.gateway.connect(asset.id, {
      handlers: {
        'files.list': () => {
          throw new AgentOfflineError(asset.id);
        },
      },
    });

    const res = await ops.request('GET', `/api/v2/assets/${asset.id}/files?path=/`);

    expect(res.status).toBe(409);
    expect(res.json.message).toBe(
      `asset flaky (${asset.id}) is offline (last seen: 2026-11-23T11:59:00.000Z)`,
    );
  });

  it('refuses a download whose bytes do not match the size the agent stated', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, {
      handlers: {
        'files.read': ({ path }) => ({ path, size: 10, data_base64: Buffer.from('abc').toString('base64') }),
      },
    });

    const res = await ops.request('GET', `/api/v2/assets/${asset.id}/files/read?path=/x`);

    expect(res.status).toBe(502);
    expect(res.json.error).toBe('upstream_error');
  });

  it('keeps files:read and files:write apart and hides assets outside allowed_assets', async () => {
    const { t, ops } = use();
    const mine = await t.createAsset();
    const other = await t.createAsset();
    for (const id of [mine.id, other.id]) ops.gateway.connect(id, { handlers: memoryFiles(new Map()) });
    const reader = await t.createKey({ role: 'operator', scopes: ['files:read'], allowed_assets: [mine.id] });

    const write = await ops.request('POST', `/api/v2/assets/${mine.id}/files/mkdir`, {
      key: reader.raw_key,
      body: { path: '/x' },
    });
    const hidden = await ops.request('GET', `/api/v2/assets/${other.id}/files?path=/`, {
      key: reader.raw_key,
    });
    const allowed = await ops.request('GET', `/api/v2/assets/${mine.id}/files?path=/`, {
      key: reader.raw_key,
    });

    expect(write.status).toBe(403);
    expect(hidden.status).toBe(404);
    expect(allowed.status).toBe(200);
    expect(ops.gateway.calls.map((c) => c.assetId)).toEqual([mine.id]);
  });
});

describe('file paths', () => {
  it('canonicalizes absolute paths and refuses the rest', () => {
    expect(canonicalPath('/')).toEqual({ ok: true, path: '/' });
    expect(canonicalPath('//etc///ssh/./sshd_config/')).toEqual({ ok: true, path: '/etc/ssh/sshd_config' });
    expect(canonicalPath('/a/..b/c..')).toEqual({ ok: true, path: '/a/..b/c..' });
    expect(canonicalPath('/a/../b').ok).toBe(false);
    expect(canonicalPath('..').ok).toBe(false);
    expect(canonicalPath('~/x').ok).toBe(false);
    expect(canonicalPath('C:\\Windows').ok).toBe(false);
    expect(canonicalPath('/a\u0000b').ok).toBe(false);
    expect(canonicalPath(`/${'x'.repeat(4095)}`).ok).toBe(true);
    expect(canonicalPath(`/${'x'.repeat(4096)}`).ok).toBe(false);
    expect(canonicalPath(`/${'é'.repeat(2048)}`).ok).toBe(false);
  });

  it('decodes strict base64 only, and checks the size before decoding', () => {
    expect(decodeBase64('', 10)).toEqual({ ok: true, bytes: Buffer.alloc(0) });
    expect(decodeBase64('aGk=', 10)).toEqual({ ok: true, bytes: Buffer.from('hi') });
    expect(decodeBase64('aGk', 10)).toEqual({ ok: true, bytes: Buffer.from('hi') });
    expect(decodeBase64('aGk', 1)).toEqual({ ok: false, tooLarge: true });
    expect(decodeBase64('a', 10)).toEqual({ ok: false, tooLarge: false });
    expect(decodeBase64('aGl=', 10)).toEqual({ ok: false, tooLarge: false });
    expect(decodeBase64('a-b_', 10)).toEqual({ ok: false, tooLarge: false });
  });

  it('makes header-safe download names', () => {
    expect(downloadName('/')).toEqual({ ascii: 'download', encoded: 'download' });
    expect(downloadName("/x/it's (1).txt")).toEqual({
      ascii: 'it_s__1_.txt',
      encoded: 'it%27s%20%281%29.txt',
    });
  });
});
