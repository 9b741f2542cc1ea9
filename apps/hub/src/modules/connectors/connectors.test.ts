/**
 * Connectors as admins manage them: credentials write-only and sealed at rest, TLS choices checked, the egress
 * guard at create (loopback and names resolving to it refused without the opt-in), removal taking the
 * connector's assets along, and the admin-only guard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connector, ConnectorCheck } from '@svc/protocol';
import {
  databaseTargets,
  startFakeProxmox,
  startTestHub,
  type FakeProxmox,
  type TestHub,
} from '@svc/testkit';
import { addConnector, fakeUpstreamResolver } from '../../testing/connector-fixtures.js';

const token = 'root@pam!hub=0b7c1d2e-3f40-4a5b-8c6d-7e8f9a0b1c2d';
const secret = token.split('=')[1] ?? '';

describe.each(databaseTargets())('connectors with the loopback opt-in ($name)', ({ options }) => {
  let t: TestHub;
  let pve: FakeProxmox;
  let base: Record<string, unknown>;

  beforeAll(async () => {
    pve = await startFakeProxmox({ token });
    t = await startTestHub({
      ...options,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver: fakeUpstreamResolver },
      connectors: { checkIntervalMs: 0, timeoutMs: 1_000 },
    });
    base = {
      kind: 'virt',
      name: 'pve',
      base_url: pve.server.url('pve.test'),
      credentials: token,
      tls_mode: 'pinned_ca',
      tls_ca: pve.server.ca,
    };
  });

  afterAll(async () => {
    await t.close();
    await pve.close();
  });

  it('never returns the credentials, and stores them sealed', async () => {
    const created = await addConnector(t, { ...base, name: 'sealed' });
    expect(created).toMatchObject({
      has_credentials: true,
      tls_mode: 'pinned_ca',
      insecure: false,
      health: 'unknown',
    });
    const read = await t.request('GET', `/api/v2/connectors/${created.id}`);
    const list = await t.request('GET', '/api/v2/connectors');
    for (const text of [read.text, list.text]) expect(text).not.toContain(secret);
    expect(read.json.data).toMatchObject({ health: 'ok', asset_count: 5 });
    const row = await t.hub.database.db
      .selectFrom('connectors')
      .select('credentials_sealed')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.credentials_sealed).not.toContain(secret);
    const audit = await t.request('GET', '/api/v2/audit/events?action=connector.created');
    expect(audit.text).not.toContain(secret);
  });

  it('checks TLS choices and names the field', async () => {
    const missing = await t.request('POST', '/api/v2/connectors', { body: { ...base, tls_ca: undefined } });
    expect(missing.status).toBe(400);
    expect(missing.json.message).toContain('tls_ca');
    const notCa = await t.request('POST', '/api/v2/connectors', { body: { ...base, tls_ca: 'garbage' } });
    expect(notCa.status).toBe(400);
    const fp = await t.request('POST', '/api/v2/connectors', {
      body: { ...base, tls_mode: 'fingerprint', tls_ca: undefined },
    });
    expect(fp.json.message).toContain('tls_fingerprint');
  });

  it('marks the insecure choice visibly, and it still reaches an unknown CA', async () => {
    const created = await addConnector(t, {
      ...base,
      name: 'insecure',
      tls_mode: 'insecure',
      tls_ca: undefined,
    });
    const read = (await t.request('GET', `/api/v2/connectors/${created.id}`)).json.data as Connector;
    expect(read).toMatchObject({ insecure: true, tls_mode: 'insecure', health: 'ok' });
    await t.request('DELETE', `/api/v2/connectors/${created.id}`);
  });

  it('a certificate from an unknown CA fails the test with a TLS reason', async () => {
    const created = await addConnector(t, { ...base, name: 'stranger' });
    pve.server.fail('unknown_ca');
    try {
      const res = await t.request('POST', `/api/v2/connectors/${created.id}/test`);
      const check = res.json.data as ConnectorCheck;
      expect(check).toMatchObject({ health: 'error', assets: null });
      expect(check.error).toContain('certificate');
    } finally {
      pve.server.fail(null);
      await t.request('DELETE', `/api/v2/connectors/${created.id}`);
    }
  });

  it('slow upstreams time out: health error with the reason', async () => {
    const created = await addConnector(t, { ...base, name: 'slow' });
    pve.server.fail('slow');
    try {
      const check = (await t.request('POST', `/api/v2/connectors/${created.id}/test`)).json
        .data as ConnectorCheck;
      expect(check.error).toContain('did not answer in time');
      expect((await t.request('GET', `/api/v2/connectors/${created.id}`)).json.data).toMatchObject({
        health: 'error',
      });
    } finally {
      pve.server.fail(null);
      await t.request('DELETE', `/api/v2/connectors/${created.id}`);
    }
  });

  it('patches without touching the credentials; new credentials reset health', async () => {
    const created = await addConnector(t, { ...base, name: 'patched' });
    const renamed = await t.request('PATCH', `/api/v2/connectors/${created.id}`, {
      body: { name: 'renamed' },
    });
    expect(renamed.json.data).toMatchObject({ name: 'renamed', health: 'ok' });
    const rekeyed = await t.request('PATCH', `/api/v2/connectors/${created.id}`, {
      body: { credentials: 'root@pam!hub=wrong' },
    });
    expect(rekeyed.json.data).toMatchObject({ health: 'unknown' });
    const check = (await t.request('POST', `/api/v2/connectors/${created.id}/test`)).json
      .data as ConnectorCheck;
    expect(check).toMatchObject({ health: 'error', error: 'HTTP 401 Authentication failed!' });
    await t.request('DELETE', `/api/v2/connectors/${created.id}`);
  });

  it('removing a connector removes the assets it brought', async () => {
    const created = await addConnector(t, { ...base, name: 'removed' });
    const before = (await t.request('GET', '/api/v2/assets?per_page=500')).json.data as {
      connector?: { connector_id: string };
    }[];
    expect(before.filter((a) => a.connector?.connector_id === created.id)).toHaveLength(5);
    expect((await t.request('DELETE', `/api/v2/connectors/${created.id}`)).status).toBe(200);
    const after = (await t.request('GET', '/api/v2/assets?per_page=500')).json.data as {
      connector?: { connector_id: string };
    }[];
    expect(after.filter((a) => a.connector?.connector_id === created.id)).toHaveLength(0);
    expect((await t.request('GET', `/api/v2/connectors/${created.id}`)).status).toBe(404);
  });

  it('is an admin area: reads by scope, changes by admins only, never by restricted keys', async () => {
    expect((await t.request('GET', '/api/v2/connectors', { key: null })).status).toBe(401);
    const operator = await t.createKey({ role: 'operator', scopes: ['*'] });
    expect((await t.request('GET', '/api/v2/connectors', { key: operator.raw_key })).status).toBe(200);
    const create = await t.request('POST', '/api/v2/connectors', { key: operator.raw_key, body: base });
    expect(create.status).toBe(403);
    const wrong = await t.createKey({ role: 'operator', scopes: ['assets:read'] });
    expect((await t.request('GET', '/api/v2/connectors', { key: wrong.raw_key })).status).toBe(403);
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    expect((await t.request('POST', '/api/v2/connectors', { key: viewer.raw_key, body: base })).status).toBe(
      403,
    );
    const asset = await t.createAsset();
    const limited = await t.createKey({ role: 'admin', scopes: ['*'], allowed_assets: [asset.id] });
    expect((await t.request('GET', '/api/v2/connectors', { key: limited.raw_key })).status).toBe(403);
    expect((await t.request('POST', '/api/v2/connectors', { key: limited.raw_key, body: base })).status).toBe(
      403,
    );
  });
});

describe('connectors without the loopback opt-in', () => {
  it('refuses a loopback address, a name resolving to it, and link-local at create', async () => {
    const t = await startTestHub({
      outbound: { resolver: fakeUpstreamResolver },
      connectors: { checkIntervalMs: 0 },
    });
    try {
      for (const url of [
        'https://127.0.0.1:8006',
        'https://pve.test:8006',
        'https://169.254.169.254',
        'https://[::1]:8006',
      ]) {
        const res = await t.request('POST', '/api/v2/connectors', {
          body: { kind: 'virt', name: 'x', base_url: url, credentials: token },
        });
        expect(res.status, url).toBe(400);
        expect(res.json.message, url).toContain('egress guard');
      }
      const plain = await t.request('POST', '/api/v2/connectors', {
        body: { kind: 'virt', name: 'x', base_url: 'http://198.51.100.7:8006', credentials: token },
      });
      expect(plain.status).toBe(400);
      const unsupported = await t.request('POST', '/api/v2/connectors', {
        body: { kind: 'stacks', name: 'x', base_url: 'https://198.51.100.7', credentials: token },
      });
      expect(unsupported.status).toBe(400);
    } finally {
      await t.close();
    }
  });
});
